package lore_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/etcdmember"
	"github.com/lorekeep/lore/store"
	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// writePEM writes one PEM block to dir/name and returns the path.
func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// testCA makes a CA and a certificate it signs for 127.0.0.1, as PEM
// files in dir: ca.pem, cert.pem, key.pem.
func testCA(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lore test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &k.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER), writePEM(t, dir, "cert.pem", "CERTIFICATE", der),
		writePEM(t, dir, "key.pem", "EC PRIVATE KEY", kb)
}

// TestEtcdTLS reaches a member that serves clients only over TLS with a
// client certificate, through the TLS files lore.json names.
func TestEtcdTLS(t *testing.T) {
	pki := t.TempDir()
	ca, cert, key := testCA(t, pki)
	ms, err := etcdmember.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	ms[0].Client = strings.Replace(ms[0].Client, "http://", "https://", 1)
	ms[0].TLS = &transport.TLSInfo{CertFile: cert, KeyFile: key, TrustedCAFile: ca, ClientCertAuth: true}
	e, err := etcdmember.Start(ms[0], etcdmember.InitialCluster(ms), t.TempDir(), os.DevNull, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	url := etcdmember.StoreURL(ms, "tls")

	dir := filepath.Join(t.TempDir(), lore.DirName)
	os.MkdirAll(dir, 0o755)
	write := func(cfg string) {
		if err := os.WriteFile(filepath.Join(dir, lore.ConfigFile), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf(`{"etcd": {"url": %q}}`, url))
	if err := lore.Init(dir); err == nil {
		t.Fatal("init over plain text on a TLS-only member worked")
	}
	write(fmt.Sprintf(`{"etcd": {"url": %q, "ca_file": %q, "cert_file": %q, "key_file": %q}}`, url, ca, cert, key))
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Put(context.Background(), store.Record{NS: "n", ID: "x", Body: "over tls"}); err != nil {
		t.Fatal(err)
	}
	if r, err := l.Get("n", "x"); err != nil || r.Body != "over tls" {
		t.Errorf("get over TLS: %+v, %v", r, err)
	}
}

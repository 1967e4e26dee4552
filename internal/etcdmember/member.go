// Package etcdmember starts one embedded etcd member on loopback ports,
// for tests and for lore-cluster. The lore binary never imports it: the
// etcd server stays out of it.
package etcdmember

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// Limits lore-cluster and the tests give their members, above etcd's
// defaults (128 ops, 1.5 MiB) so that one import batch fits one
// transaction; docs/SCALING.md says what a user's cluster needs.
const (
	MaxTxnOps       = 4096
	MaxRequestBytes = 16 << 20
)

// Member is one planned member: its name and loopback URLs.
type Member struct {
	Name   string
	Client string // http://127.0.0.1:port (https with TLS)
	Peer   string // http://127.0.0.1:port
	// TLS, when set, serves clients over TLS with these files.
	TLS *transport.TLSInfo `json:"-"`
	// BcryptCost, when set, is the cost of the member's password hashing
	// (etcd's --bcrypt-cost; 0 is etcd's default, 10). A test with auth
	// on sets bcrypt's least, 4: a login hashes the password, and under the
	// race detector on a loaded machine one took past a client's 5 s.
	BcryptCost uint `json:"-"`
}

// Plan picks n members with free loopback ports (asked of the kernel, so
// two runs side by side do not collide).
func Plan(n int) ([]Member, error) {
	ms := make([]Member, n)
	for i := range ms {
		c, err := FreePort()
		if err != nil {
			return nil, err
		}
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		ms[i] = Member{Name: fmt.Sprintf("m%d", i+1), Client: fmt.Sprintf("http://127.0.0.1:%d", c), Peer: fmt.Sprintf("http://127.0.0.1:%d", p)}
	}
	return ms, nil
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// InitialCluster is etcd's --initial-cluster for ms.
func InitialCluster(ms []Member) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m.Name+"="+m.Peer)
	}
	return strings.Join(parts, ",")
}

// StoreURL is the lore store URL for ms with the given key prefix.
func StoreURL(ms []Member, prefix string) string {
	var hosts []string
	for _, m := range ms {
		hosts = append(hosts, strings.TrimPrefix(strings.TrimPrefix(m.Client, "http://"), "https://"))
	}
	return "etcd://" + strings.Join(hosts, ",") + "/" + strings.Trim(prefix, "/")
}

// Start starts member m of cluster in dir and waits until it is ready
// (for a multi-member cluster: until a quorum has formed) or timeout.
// The member logs its warnings and errors to logPath (os.DevNull to
// drop them). fsync is kept: the fault tests count on durability.
func Start(m Member, cluster, dir, logPath string, timeout time.Duration) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = dir
	cu, err := url.Parse(m.Client)
	if err != nil {
		return nil, err
	}
	pu, err := url.Parse(m.Peer)
	if err != nil {
		return nil, err
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = cluster
	cfg.InitialClusterToken = "lore-cluster"
	cfg.ClusterState = embed.ClusterStateFlagNew
	if m.TLS != nil {
		cfg.ClientTLSInfo = *m.TLS
	}
	if m.BcryptCost > 0 {
		cfg.BcryptCost = m.BcryptCost
	}
	cfg.MaxTxnOps = MaxTxnOps
	cfg.MaxRequestBytes = MaxRequestBytes
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{logPath}
	cfg.ListenMetricsUrls = nil
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd member %s in %s: %w", m.Name, dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd member %s: %w", m.Name, err)
	case <-time.After(timeout):
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("etcd member %s in %s: not ready after %s", m.Name, dir, timeout)
	}
}

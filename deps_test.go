package lore_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryLinksNoEtcd: a program that imports lore (or store) to keep
// its records in one bbolt file links no etcd client and no gRPC; they
// come with package store/etcdstore, which the programs that open etcd
// stores import.
func TestLibraryLinksNoEtcd(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "./store").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "go.etcd.io/bbolt") {
		t.Errorf("lore does not depend on bbolt; the list is wrong")
	}
	for _, line := range strings.Fields(string(out)) {
		if strings.HasPrefix(line, "go.etcd.io/etcd/") || strings.HasPrefix(line, "google.golang.org/grpc") {
			t.Errorf("a program that imports lore links %s", line)
		}
	}
}

package server_test

import (
	"os"
	"testing"

	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
)

// TestMain closes the embedded etcd member the etcd tests share.
func TestMain(m *testing.M) { os.Exit(etcdtest.Main(m)) }

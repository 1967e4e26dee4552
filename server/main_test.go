package server_test

import (
	"os"
	"testing"

	"github.com/lorekeep/lore/store/storetest"
)

// TestMain closes the embedded etcd member the etcd tests share.
func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

package store_test

import (
	"testing"

	"github.com/lorekeep/lore/store/storetest"
)

// TestConformance runs the store contract on bbolt, in a temp file;
// package etcdstore's tests run it on etcd.
func TestConformance(t *testing.T) {
	t.Run("bbolt", func(t *testing.T) { storetest.Conformance(t, storetest.Open) })
}

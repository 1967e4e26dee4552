package lore

import (
	"embed"
	"io/fs"
)

// demoFiles is the bundled demo canon: two original small novels, one
// namespace each (see testdata/demo/README.md).
//
//go:embed testdata/demo
var demoFiles embed.FS

// Demo namespaces and the focus of the packet `lore demo` prints.
const (
	DemoNS     = "tidewater-lamp"
	DemoFocus  = "scene-03"
	DemoBudget = 3000
)

// DemoCanon returns the demo canon: one folder per namespace, each a
// markdown folder that format/markdown reads (package demo loads it).
func DemoCanon() fs.FS {
	sub, err := fs.Sub(demoFiles, "testdata/demo")
	if err != nil {
		panic(err) // the embedded path is fixed at build time
	}
	return sub
}

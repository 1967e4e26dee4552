package main

import (
	"bufio"
	"fmt"
	"os"
)

// packetDump is where the packets phase writes each packet's sha256 (or
// its refusal's), for comparing the bytes two builds give.
type packetDump struct {
	f *os.File
	*bufio.Writer
}

// createDump opens file for a packetDump; no file gives none (nil).
func createDump(file string) (*packetDump, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("-packets-out: %w", err)
	}
	return &packetDump{f: f, Writer: bufio.NewWriter(f)}, nil
}

// Close flushes and closes the dump once; a nil dump does nothing.
func (d *packetDump) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	err := d.Flush()
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.f = nil
	return err
}

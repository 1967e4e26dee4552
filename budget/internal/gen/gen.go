// Package gen turns the BPE rank files of the offline tiktoken loader
// (github.com/pkoukk/tiktoken-go-loader) into the compact rank files that
// package budget embeds, so that loading an encoding parses no base64 text.
//
// Rank file format (version 1), all of it in rank order:
//
//	"LORERANK"            8 bytes of magic
//	1                     one byte: the format version
//	n                     uvarint: the number of tokens; ranks are 0..n-1
//	len[0..n-1]           n bytes: the length of each token (1..255)
//	bytes                 the tokens' bytes, concatenated
package gen

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Magic opens every rank file; Version follows it.
const (
	Magic   = "LORERANK"
	Version = 1
)

// Encodings are the encodings for which rank files are generated.
var Encodings = []string{"cl100k_base", "o200k_base"}

// FileName is the name of the rank file of an encoding.
func FileName(encoding string) string { return "ranks_" + encoding + ".bin" }

// Ranks returns the rank file of an encoding, built from the loader's assets.
func Ranks(encoding string) ([]byte, error) {
	src, err := assets.Assets.ReadFile(encoding + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("read %q from tiktoken-go-loader: %w", encoding, err)
	}
	return Convert(src)
}

// Convert turns the text of a .tiktoken file ("base64 rank" per line) into a
// rank file. Ranks must be dense (0..n-1, each once) and tokens 1..255 bytes.
func Convert(src []byte) ([]byte, error) {
	var tokens [][]byte
	lines := bytes.Split(src, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not \"base64 rank\"", i+1, line)
		}
		tok, err := base64.StdEncoding.DecodeString(string(b64))
		if err != nil {
			return nil, fmt.Errorf("line %d: token %q: %w", i+1, b64, err)
		}
		rank, err := strconv.Atoi(string(num))
		if err != nil || rank < 0 {
			return nil, fmt.Errorf("line %d: rank %q is not a non-negative integer", i+1, num)
		}
		if len(tok) == 0 || len(tok) > 255 {
			return nil, fmt.Errorf("line %d: token of %d bytes, want 1..255", i+1, len(tok))
		}
		for len(tokens) <= rank {
			tokens = append(tokens, nil)
		}
		if tokens[rank] != nil {
			return nil, fmt.Errorf("line %d: rank %d given twice", i+1, rank)
		}
		tokens[rank] = tok
	}
	var out bytes.Buffer
	out.WriteString(Magic)
	out.WriteByte(Version)
	out.Write(binary.AppendUvarint(nil, uint64(len(tokens))))
	for r, tok := range tokens {
		if tok == nil {
			return nil, fmt.Errorf("rank %d is missing: ranks must be dense", r)
		}
		out.WriteByte(byte(len(tok)))
	}
	for _, tok := range tokens {
		out.Write(tok)
	}
	return out.Bytes(), nil
}

// Write writes the rank file of every encoding into dir.
func Write(dir string) error {
	for _, name := range Encodings {
		data, err := Ranks(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, FileName(name)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/clip"
	"github.com/lorekeep/lore/store"
)

// readVectorFile reads a vector from path ('-': stdin): a JSON array of
// numbers, as most embedding APIs return one, or numbers separated by
// spaces, commas or newlines, as numpy's savetxt writes one. The error
// names the file and the element that is not a float32.
func readVectorFile(stdin io.Reader, path string) ([]float32, error) {
	var data []byte
	var err error
	what := path
	if path == "-" {
		what = "stdin"
		data, err = io.ReadAll(io.LimitReader(stdin, 64<<20))
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read vector: %w", err)
	}
	text := strings.TrimSpace(string(data))
	var fields []string
	if strings.HasPrefix(text, "[") {
		var nums []json.Number
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&nums); err != nil {
			return nil, fmt.Errorf("%w: vector file %s: %v; want a JSON array of numbers, or numbers separated by spaces", store.ErrInvalid, what, err)
		}
		for _, n := range nums {
			fields = append(fields, n.String())
		}
	} else {
		fields = strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: vector file %s holds no numbers; want a JSON array of numbers, or numbers separated by spaces", store.ErrInvalid, what)
	}
	v := make([]float32, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 32)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, badvalue.Errorf(clip.String(f, 40), "%w: vector file %s: element %d is %q, not a finite float32", store.ErrInvalid, what, i, clip.String(f, 40))
		}
		v[i] = float32(x)
	}
	return v, nil
}

// Command genranks writes the compact rank files of package budget.
// Run it through go generate in budget/: go generate ./budget/
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lorekeep/lore/budget/internal/gen"
)

func main() {
	dir := flag.String("dir", ".", "directory to write the rank files into")
	flag.Parse()
	if err := gen.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "genranks:", err)
		os.Exit(1)
	}
}

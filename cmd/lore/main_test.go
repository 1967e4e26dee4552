package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lore": func() { os.Exit(run(os.Args[1:])) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each is a
// txtar archive of commands, their expected output and input files, run in
// a fresh temporary directory with the real binary entry point.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("LORE_STORE", "")
			return nil
		},
	})
}

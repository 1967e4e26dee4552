package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"strconv"
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"jsondoc": cmdJSONDoc,
		},
	})
}

// cmdExits runs a program and checks its exact exit code:
//
//	exits 2 lore pack . --budget 100
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdJSONDoc checks that a file (default stdout) holds exactly one JSON
// document and nothing else but white space:
//
//	jsondoc
//	jsondoc stderr
func cmdJSONDoc(ts *testscript.TestScript, neg bool, args []string) {
	name := "stdout"
	if len(args) == 1 {
		name = args[0]
	}
	data := ts.ReadFile(name)
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("more after the first document")
		}
	}
	if neg != (err != nil) {
		ts.Fatalf("jsondoc %s: %v (neg=%v)\n%s", name, err, neg, data)
	}
}

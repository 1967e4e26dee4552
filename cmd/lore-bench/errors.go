package main

import "errors"

// Sentinel errors of the benchmark program.
var (
	// errUsage marks a bad flag value; the message quotes it.
	errUsage = errors.New("bad usage")
	// errPhase marks a measurement phase (a sub-process) that failed.
	errPhase = errors.New("phase failed")
)

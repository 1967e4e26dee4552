package main

import "testing"

func TestX(t *testing.T) {}

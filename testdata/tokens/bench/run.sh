#!/bin/sh
# Token-counting benchmark: Lore's counter beside npm tiktoken 1.0.22 (the
# WASM build of OpenAI's tokenizer) and pkoukk/tiktoken-go, on the same
# texts, in one run. Prints the markdown table of BENCHMARKS.md.
#
#   testdata/tokens/bench/run.sh        (from anywhere; needs go, node, npm)
#
# BENCHTIME (default 5x) and COUNT (default 3) tune the Go side; the best
# of COUNT runs is reported, as bench.mjs reports its best pass.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
cd "$root"
[ -d "$here/node_modules/tiktoken" ] || (cd "$here" && npm ci --no-audit --no-fund >/dev/null)
go test ./budget/ -run TestWriteBenchCorpus -count 1 -corpus "$work/corpus" -corpus-counts "$work/counts.jsonl" >/dev/null
go test ./budget/ -run '^$' -bench 'BenchmarkCount$|BenchmarkCountParallel|BenchmarkLibrary' \
	-benchtime "${BENCHTIME:-5x}" -count "${COUNT:-3}" >"$work/go.txt"
node "$here/bench.mjs" "$work"/corpus/*.txt >"$work/node.jsonl"
LORE_MEASURE_LOAD=1 go test ./budget/ -run '^TestLoadTimeFreshProcess$' -count 1 -v >"$work/load.txt"
grep -E '^(goos|goarch|cpu):' "$work/go.txt" | sort -u
echo "go: $(go version | cut -d' ' -f3)  node: $(node --version)  GOMAXPROCS: $(nproc)"
echo
node "$here/table.mjs" "$work/go.txt" "$work/node.jsonl" "$work/counts.jsonl"
echo
echo "Loading (first use in a fresh process, best of 5):"
grep 'ready in a fresh process' "$work/load.txt" | sed 's/^.*\.go:[0-9]*: /- /'

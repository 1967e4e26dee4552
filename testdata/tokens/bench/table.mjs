// Joins the Go benchmark output and bench.mjs output into the markdown
// table of BENCHMARKS.md ("Token counting").
//
//   node table.mjs GO_BENCH_OUTPUT NODE_JSONL GO_COUNTS_JSONL
import { readFileSync } from "node:fs";

const [goFile, nodeFile, countsFile] = process.argv.slice(2);
const best = {}; // "bench/enc/kind" -> best MB/s over -count runs
for (const line of readFileSync(goFile, "utf8").split("\n")) {
  const m = line.match(/^Benchmark(\w+)\/(\w+)\/([\w-]+)-\d+\s+\d+\s+[\d.]+ ns\/op\s+([\d.]+) MB\/s/);
  if (m) {
    const key = `${m[1]}/${m[2]}/${m[3]}`;
    best[key] = Math.max(best[key] ?? 0, Number(m[4]));
  }
}
const node = {};
for (const line of readFileSync(nodeFile, "utf8").split("\n")) {
  if (line) { const r = JSON.parse(line); node[`${r.encoding}/${r.file}`] = r; }
}
const counts = {};
for (const line of readFileSync(countsFile, "utf8").split("\n")) {
  if (line) { const r = JSON.parse(line); counts[`${r.encoding}/${r.file}`] = r; }
}
const kinds = ["prose", "code", "cjk", "json", "golden", "mixed", "run-a", "run-space", "run-equals", "run-emoji"];
const f = (x) => (x === undefined ? "-" : x.toFixed(2));
console.log("| text | encoding | npm tiktoken 1.0.22 (WASM) MB/s | Lore, 1 goroutine MB/s | ratio | Lore `Count` (parallel) MB/s | tiktoken-go MB/s | same count |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
for (const enc of ["cl100k_base", "o200k_base"]) {
  for (const kind of kinds) {
    const n = node[`${enc}/${kind}`];
    const ours = best[`Count/${enc}/${kind}`];
    const par = best[`CountParallel/${enc}/${kind}`];
    const lib = best[`Library/${enc}/${kind}`];
    const c = counts[`${enc}/${kind}`];
    let ratio = "-", same = "-", nodeCell = "-";
    if (n) {
      nodeCell = f(n.mbps);
      if (kind.startsWith("run-")) nodeCell += ` (${(n.bytes / 1024).toFixed(0)} KB: ${n.ms.toFixed(0)} ms)`;
      if (ours) ratio = (ours / n.mbps).toFixed(1) + "x";
      if (c) same = (kind.startsWith("run-") ? c.prefixTokens : c.tokens) === n.tokens ? "yes" : `NO (${c.tokens} vs ${n.tokens})`;
    }
    console.log(`| ${kind} | ${enc} | ${nodeCell} | ${f(ours)} | ${ratio} | ${f(par)} | ${f(lib)} | ${same} |`);
  }
}

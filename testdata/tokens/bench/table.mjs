// Joins the Go benchmark output and bench.mjs output into the markdown
// table of BENCHMARKS.md ("Token counting").
//
//   node table.mjs GO_BENCH_OUTPUT NODE_JSONL GO_COUNTS_JSONL
import { readFileSync } from "node:fs";

const [goFile, nodeFile, countsFile] = process.argv.slice(2);
const best = {}, bestCPU = {}; // "bench/enc/kind" -> best MB/s over -count runs
for (const line of readFileSync(goFile, "utf8").split("\n")) {
  const m = line.match(/^Benchmark(\w+)\/(\w+)\/([\w-]+)-\d+\s+\d+\s+[\d.]+ ns\/op\s+([\d.]+) MB\/s(?:\s+([\d.]+) cpu-MB\/s)?/);
  if (m) {
    const key = `${m[1]}/${m[2]}/${m[3]}`;
    best[key] = Math.max(best[key] ?? 0, Number(m[4]));
    if (m[5]) bestCPU[key] = Math.max(bestCPU[key] ?? 0, Number(m[5]));
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
const f = (x) => (x === undefined ? "-" : x < 1 ? x.toFixed(3) : x.toFixed(1));
console.log("Wall-clock MB/s, then MB per CPU-second in parentheses (user + system time of the process: robust when other processes share the cores). Ratio: Lore single goroutine / npm tiktoken, by wall time (by CPU time in parentheses).");
console.log();
console.log("| text | encoding | npm tiktoken 1.0.22 (WASM) | Lore `count`, 1 goroutine | ratio | Lore `Count` (parallel) | pkoukk/tiktoken-go | same count |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
for (const enc of ["cl100k_base", "o200k_base"]) {
  for (const kind of kinds) {
    const n = node[`${enc}/${kind}`];
    const key = (b) => `${b}/${enc}/${kind}`;
    const ours = best[key("Count")], oursCPU = bestCPU[key("Count")];
    const par = best[key("CountParallel")];
    const lib = best[key("Library")], libCPU = bestCPU[key("Library")];
    const c = counts[`${enc}/${kind}`];
    let ratio = "-", same = "-", nodeCell = "-";
    if (n) {
      nodeCell = `${f(n.mbps)} (${f(n.cpu_mbps)})`;
      if (kind.startsWith("run-")) nodeCell += ` on ${(n.bytes / 1024).toFixed(0)} KB: ${(n.cpu_ms / 1000).toFixed(2)} s`;
      if (ours && oursCPU) ratio = `${(ours / n.mbps).toFixed(1)}x (${(oursCPU / n.cpu_mbps).toFixed(1)}x)`;
      if (c) {
        const mine = kind.startsWith("run-") ? c.prefixTokens : c.tokens;
        same = mine === n.tokens ? `yes (${n.tokens})` : `NO (${mine} vs ${n.tokens})`;
      }
    }
    const cell = (w, cpu) => (w === undefined ? "-" : cpu === undefined ? f(w) : `${f(w)} (${f(cpu)})`);
    console.log(`| ${kind} | ${enc} | ${nodeCell} | ${cell(ours, oursCPU)} | ${ratio} | ${f(par)} | ${cell(lib, libCPU)} | ${same} |`);
  }
}

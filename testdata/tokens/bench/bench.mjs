// Counts the tokens of text files with npm tiktoken 1.0.22 (the WASM build
// of OpenAI's Rust tokenizer), single-threaded, and prints one JSON line
// per file and encoding: {"file", "encoding", "bytes", "tokens", "passes",
// "ms", "mbps", "cpu_ms", "cpu_mbps"}: wall-clock and CPU-time (user +
// system, process.cpuUsage) figures of the best pass.
//
//   npm ci && node bench.mjs [--max-run-bytes N] FILE...
//
// Each file is counted repeatedly for at least --min-ms (default 2000 ms)
// after one warm-up pass; the best pass is reported, as Go's benchmarks
// report a mean over a steady loop. Files named run-*.txt (one character
// repeated) are cut to --max-run-bytes (default 32768): the reference is
// quadratic there (1 MB of one letter takes about 13 minutes).
import { get_encoding } from "tiktoken";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const args = process.argv.slice(2);
let minMs = 2000, maxRun = 32768;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--min-ms") minMs = Number(args[++i]);
  else if (args[i] === "--max-run-bytes") maxRun = Number(args[++i]);
  else files.push(args[i]);
}
const encoder = new TextEncoder();
for (const name of ["cl100k_base", "o200k_base"]) {
  const enc = get_encoding(name);
  for (const file of files) {
    let text = readFileSync(file, "utf8");
    const base = basename(file, ".txt");
    if (base.startsWith("run-")) {
      // Cut at a character boundary.
      text = Array.from(text).slice(0, Math.max(1, Math.floor(maxRun / encoder.encode(Array.from(text)[0]).length))).join("");
    }
    const bytes = encoder.encode(text).length;
    let tokens = enc.encode_ordinary(text).length; // warm-up
    let best = Infinity, bestCPU = Infinity, total = 0, passes = 0;
    while (total < minMs || passes < 3) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      tokens = enc.encode_ordinary(text).length;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const c = process.cpuUsage(c0);
      best = Math.min(best, ms);
      bestCPU = Math.min(bestCPU, (c.user + c.system) / 1e3);
      total += ms;
      passes++;
    }
    console.log(JSON.stringify({
      file: base, encoding: name, bytes, tokens, passes,
      ms: +best.toFixed(3), mbps: +(bytes / 1e6 / (best / 1e3)).toFixed(2),
      cpu_ms: +bestCPU.toFixed(3), cpu_mbps: +(bytes / 1e6 / (bestCPU / 1e3)).toFixed(2),
    }));
  }
  enc.free();
}

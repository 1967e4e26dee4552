// Reads JSON lines {"text": "..."} on stdin and writes one line per input,
// {"cl100k_base": N, "o200k_base": M}, counted by npm tiktoken (ordinary
// text: no special tokens). Used by budget's TestDifferentialNode.
import { get_encoding } from "tiktoken";
import { readFileSync } from "node:fs";

const encs = { cl100k_base: get_encoding("cl100k_base"), o200k_base: get_encoding("o200k_base") };
const out = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (line === "") continue;
  const { text } = JSON.parse(line);
  const row = {};
  for (const [name, enc] of Object.entries(encs)) row[name] = enc.encode(text, [], []).length;
  out.push(JSON.stringify(row));
}
process.stdout.write(out.join("\n") + "\n");

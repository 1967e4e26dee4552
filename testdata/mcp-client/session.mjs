// A scripted agent session against the real `lore serve --mcp` binary,
// driven by the official MCP TypeScript SDK over stdio. It uses both tool
// sets (the reference memory server's and Lore's own), asserts the
// results, and prints a transcript. Usage: node session.mjs PATH-TO-LORE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const lore = process.argv[2];
if (!lore) {
  console.error("usage: node session.mjs PATH-TO-LORE-BINARY");
  process.exit(1);
}
const MAX_OUTPUT = 4000;
const tmp = mkdtempSync(join(tmpdir(), "lore-mcp-"));
const store = join(tmp, ".lore");

function sh(...args) {
  const r = spawnSync(lore, ["--store", store, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`lore ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function short(s, n = 160) {
  s = s.replace(/\s+/g, " ");
  return s.length > n ? s.slice(0, n) + ` ... (${s.length} chars)` : s;
}

let step = 0;
// call runs one tool and returns its text blocks; a tool error throws
// unless wantError.
async function call(client, name, args = {}, { wantError = false } = {}) {
  step++;
  const res = await client.callTool({ name, arguments: args });
  const texts = res.content.map((c) => {
    assert.equal(c.type, "text", `${name}: content type ${c.type}`);
    return c.text;
  });
  console.log(`#${step} ${name} ${short(JSON.stringify(args), 120)}`);
  for (const t of texts) console.log(`   ${res.isError ? "ERROR " : "-> "}${short(t)}`);
  if (wantError) {
    assert.ok(res.isError, `${name}: want a tool error, got ${texts.join("\n")}`);
  } else {
    assert.ok(!res.isError, `${name}: tool error: ${texts.join("\n")}`);
  }
  texts.res = res;
  return texts;
}

// callJSON returns a tool's structuredContent (validated by the SDK against
// the tool's outputSchema), with a deferral note from _meta as "deferred".
async function callJSON(client, name, args) {
  const texts = await call(client, name, args);
  const res = texts.res;
  assert.ok(res.structuredContent, `${name}: no structuredContent`);
  const deferred = res._meta?.["lore/deferred"];
  return deferred ? { ...res.structuredContent, deferred } : res.structuredContent;
}

async function main() {
  sh("init");
  const transport = new StdioClientTransport({
    command: lore,
    args: ["--store", store, "serve", "--mcp", "--max-output", String(MAX_OUTPUT)],
    stderr: "inherit",
  });
  const client = new Client({ name: "lore-session-test", version: "1.0.0" });
  await client.connect(transport);
  const info = client.getServerVersion();
  console.log(`connected to ${info.name} ${info.version}`);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  console.log(`tools (${names.length}): ${names.join(", ")}`);
  const memoryTools = ["create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"];
  const loreTools = ["put_record", "get_record", "search", "link", "unlink", "neighbors", "forget",
    "build_packet", "list_namespaces", "stats"];
  for (const n of [...memoryTools, ...loreTools]) assert.ok(names.includes(n), `tool ${n} missing`);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.read_graph.annotations.readOnlyHint, true, "read_graph read-only");
  assert.equal(byName.delete_entities.annotations.destructiveHint, true, "delete_entities destructive");
  assert.deepEqual([...byName.create_entities.inputSchema.required], ["entities"]);

  // --- the reference memory server's tools ---
  let r = await callJSON(client, "create_entities", { entities: [
    { name: "Ada", entityType: "person", observations: ["writes the harbour log", "prefers green tea"] },
    { name: "Harbour", entityType: "place", observations: ["has a lighthouse"] },
    { name: "Lighthouse", entityType: "place", observations: ["was rebuilt in 1901"] },
  ] });
  assert.equal(r.entities.length, 3);
  r = await callJSON(client, "create_entities", { entities: [
    { name: "Ada", entityType: "robot", observations: ["duplicate"] },
  ] });
  assert.equal(r.entities.length, 0, "an existing entity is skipped");
  r = await callJSON(client, "create_relations", { relations: [
    { from: "Ada", to: "Harbour", relationType: "works_at" },
    { from: "Harbour", to: "Lighthouse", relationType: "contains" },
  ] });
  assert.equal(r.relations.length, 2);
  r = await callJSON(client, "add_observations", { observations: [
    { entityName: "Ada", contents: ["prefers green tea", "keeps a cat named Fog"] },
  ] });
  assert.deepEqual(r.results[0].addedObservations, ["keeps a cat named Fog"]);
  await call(client, "add_observations", { observations: [{ entityName: "Nobody", contents: ["x"] }] }, { wantError: true });
  r = await callJSON(client, "search_nodes", { query: "tea" });
  assert.deepEqual(r.entities.map((e) => e.name), ["Ada"]);
  r = await callJSON(client, "open_nodes", { names: ["Harbour", "Lighthouse", "Missing"] });
  assert.deepEqual(r.entities.map((e) => e.name), ["Harbour", "Lighthouse"]);
  // Every relation touching a returned entity, as the reference server.
  assert.deepEqual(r.relations.map((x) => `${x.from}-${x.relationType}->${x.to}`).sort(), ["Ada-works_at->Harbour", "Harbour-contains->Lighthouse"]);
  await call(client, "delete_observations", { deletions: [{ entityName: "Ada", observations: ["prefers green tea"] }] });
  await call(client, "delete_relations", { relations: [{ from: "Harbour", to: "Lighthouse", relationType: "contains" }] });
  r = await callJSON(client, "read_graph", {});
  assert.equal(r.entities.length, 3);
  assert.equal(r.relations.length, 1);
  assert.ok(!r.deferred, "a small graph is not deferred");
  assert.ok(!r.entities.find((e) => e.name === "Ada").observations.includes("prefers green tea"));

  // --- Lore's own tools ---
  r = await callJSON(client, "put_record", { id: "pref-tea", kind: "memory", body: "The user drinks green tea at nine every morning.", tags: ["user"] });
  assert.equal(r.status, "added");
  for (let i = 0; i < 40; i++) {
    await client.callTool({ name: "put_record", arguments: { id: `log-${String(i).padStart(2, "0")}`, kind: "memory",
      body: `Harbour log entry ${i}: ` + "the tide came in over the harbour wall and the lighthouse kept its watch. ".repeat(6) } });
  }
  console.log(`   (40 harbour log records put)`);
  r = await callJSON(client, "link", { from: "pref-tea", rel: "about", to: "Ada" });
  assert.equal(r.changed, true);
  r = await callJSON(client, "neighbors", { id: "Ada" });
  assert.deepEqual(r.neighbors.map((n) => n.id).sort(), ["Harbour", "pref-tea"]);
  r = await callJSON(client, "search", { query: "green tea" });
  assert.equal(r.hits[0].id, "pref-tea");
  r = await callJSON(client, "get_record", { id: "pref-tea" });
  assert.equal(r.body, "The user drinks green tea at nine every morning.");

  // A packet with a small budget: deferral notes name what was left out.
  const [pkt, report] = await call(client, "build_packet", { query: "harbour tide lighthouse", budget: "2500" });
  console.log(report.trimEnd().split("\n").map((l) => "   | " + l).join("\n"));
  assert.match(report, /Packed: \d+ records/);
  assert.match(report, /Deferred: \d+ records/);
  assert.match(report, /get_record/);
  const m = report.match(/Packed: \d+ records, ([\d,]+) tokens \(\d+% of budget ([\d,]+)\)/);
  assert.ok(m, "report states tokens and budget");
  const [used, budget] = [Number(m[1].replace(/,/g, "")), Number(m[2].replace(/,/g, ""))];
  assert.ok(used <= budget, `packet ${used} tokens over budget ${budget}`);
  assert.match(pkt, /log-\d\d/, "the packet holds harbour log records");
  assert.match(pkt, /[Dd]eferred/, "the packet closes with deferral notes");

  // Bounded output: a graph bigger than the ceiling.
  const many = [];
  for (let i = 0; i < 300; i++) {
    many.push({ name: `sailor-${String(i).padStart(3, "0")}`, entityType: "person",
      observations: [`sailor ${i} signed on at the harbour`, `sailor ${i} knows the lighthouse keeper`] });
  }
  r = await callJSON(client, "create_entities", { entities: many });
  assert.ok(r.entities.length + (r.deferred ? r.deferred.count : 0) === 300, "every created entity is echoed or counted");
  const graph = await callJSON(client, "read_graph", {});
  const graphText = JSON.stringify(graph);
  assert.ok(graph.deferred, "a graph over the ceiling carries a deferral note");
  const d = graph.deferred;
  console.log(`   shown ${graph.entities.length} entities; deferred ${d.entities} entities, ${d.relations} relations, ${d.tokens} tokens: ` +
    `${d.names.slice(0, 3).join(", ")}, ... (+${d.more || 0} unlisted); fetch: ${short(d.fetch, 90)}`);
  assert.equal(graph.entities.length + graph.deferred.entities, 300 + 3 + 1 + 40, "every record is an entity");
  assert.ok(graph.deferred.names.length > 0 && /open_nodes/.test(graph.deferred.fetch));
  assert.ok(graphText.length < MAX_OUTPUT * 6, `read_graph answer of ${graphText.length} chars is far over ${MAX_OUTPUT} tokens`);
  r = await callJSON(client, "open_nodes", { names: graph.deferred.names.slice(0, 2) });
  assert.deepEqual(r.entities.map((e) => e.name), graph.deferred.names.slice(0, 2));

  // --- deletes ---
  await call(client, "delete_entities", { entityNames: ["Harbour"] });
  r = await callJSON(client, "open_nodes", { names: ["Ada", "Harbour"] });
  assert.deepEqual(r.entities.map((e) => e.name), ["Ada"]);
  r = await callJSON(client, "neighbors", { id: "Ada" });
  assert.deepEqual(r.neighbors.map((n) => n.id), ["pref-tea"], "delete_entities removed Harbour's relations");
  await callJSON(client, "forget", { id: "pref-tea" });
  await call(client, "get_record", { id: "pref-tea" }, { wantError: true });
  r = await callJSON(client, "stats", {});
  assert.equal(r.records, 40 + 2 + 300);

  // Scoping: a server fixed to one namespace refuses another.
  await client.close();
  const scoped = new Client({ name: "lore-session-test-scoped", version: "1.0.0" });
  await scoped.connect(new StdioClientTransport({ command: lore, args: ["--store", store, "serve", "--mcp", "--ns", "team/a"], stderr: "inherit" }));
  const [refusal] = await call(scoped, "get_record", { ns: "memory", id: "Ada" }, { wantError: true });
  assert.match(refusal, /team\/a/);
  await scoped.close();

  const check = spawnSync(lore, ["--store", store, "check"], { encoding: "utf8" });
  console.log(`lore check: exit ${check.status} ${short(check.stdout + check.stderr)}`);
  assert.equal(check.status, 0, "lore check is clean");
  console.log(`PASS: ${step} tool calls`);
}

main()
  .then(() => rmSync(tmp, { recursive: true, force: true }))
  .catch((err) => {
    console.error(`FAIL: ${err.stack || err}`);
    rmSync(tmp, { recursive: true, force: true });
    process.exit(1);
  });

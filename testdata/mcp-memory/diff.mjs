// Differential test: one scripted session against the reference MCP memory
// server (@modelcontextprotocol/server-memory, pinned in package-lock.json)
// and against `lore serve --mcp`, each on a fresh store, through the
// official TypeScript SDK client (which validates structuredContent against
// each tool's outputSchema). Every answer is compared exactly, text and
// structuredContent, except the differences docs/SERVER.md lists, which
// the calls below name one by one (`known`) and check in their own way.
// Usage: node diff.mjs PATH-TO-LORE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

const lore = process.argv[2];
if (!lore) throw new Error("usage: node diff.mjs PATH-TO-LORE");
const dir = mkdtempSync(join(tmpdir(), "lore-memdiff-"));
const CEILING = 4000;

async function connect(name, command, args, env) {
  const t = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: "ignore" });
  const c = new Client({ name: "memdiff", version: "1" });
  const updates = [];
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  await c.connect(t);
  return { name, c, updates };
}

execFileSync(lore, ["init", "--store", join(dir, "lore")]);
const ref = await connect("reference", process.execPath,
  ["node_modules/@modelcontextprotocol/server-memory/dist/index.js"], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") });
const lo = await connect("lore", lore, ["--store", join(dir, "lore"), "serve", "--mcp", "--max-output", String(CEILING)], {});

const e = (name, entityType, ...observations) => ({ name, entityType, observations });
const r = (from, relationType, to) => ({ from, to, relationType });
const big = Array.from({ length: 120 }, (_, i) =>
  e(`topic ${i}`, "note", `observation ${i} about the harbour, the tide tables and the keeper's log, kept long on purpose`, `topic ${i} second line`));

// The session: [tool, arguments, known difference (see docs/SERVER.md)].
const session = [
  ["read_graph", {}],
  ["create_entities", { entities: [e("alice", "person", "likes green tea", "works remotely"), e("acme", "organization", "makes anvils")] }],
  ["create_entities", { entities: [e("bob", "person", "drinks tea at nine"), e("alice", "person", "ignored: exists")] }],
  ["create_entities", { entities: [e("Zoë Ångström", "person", "naïve café owner ☕", "writes 日本語"), e("tea house", "place", "serves tea\nand cake", "", "  padded  ", "line\r\nwith CRLF", "sep\u2028arator")] }],
  ["create_entities", { entities: [] }],
  ["create_relations", { relations: [r("alice", "works_at", "acme"), r("bob", "knows", "alice"), r("bob", "visits", "tea house")] }],
  ["create_relations", { relations: [r("alice", "works_at", "acme"), r("alice", "knows", "Zoë Ångström")] }],
  ["create_relations", { relations: [r("alice", "mentors", "ghost"), r("phantom", "haunts", "acme")] }],
  ["create_relations", { relations: [r("tea house", "hosts", "bob"), r("acme", "employs", "bob"), r("acme", "backs", "tea house")] }],
  ["read_graph", {}],
  ["add_observations", { observations: [{ entityName: "alice", contents: ["likes green tea", "plays chess", "plays chess"] }, { entityName: "acme", contents: ["founded 1901"] }] }],
  ["add_observations", { observations: [{ entityName: "alice", contents: ["plays chess", "multi\nline\n"] }] }],
  ["add_observations", { observations: [{ entityName: "acme", contents: ["never stored"] }, { entityName: "nobody", contents: ["x"] }] }],
  ["open_nodes", { names: ["acme"] }],
  ["search_nodes", { query: "tea" }],
  ["search_nodes", { query: "TEA" }],
  ["search_nodes", { query: "café" }],
  ["search_nodes", { query: "ghost" }],
  ["search_nodes", { query: "no such thing" }],
  ["search_nodes", { query: "" }],
  ["open_nodes", { names: ["alice", "acme"] }],
  ["open_nodes", { names: ["acme", "alice", "nobody", "ghost"] }],
  ["open_nodes", { names: [] }],
  ["delete_observations", { deletions: [{ entityName: "alice", observations: ["plays chess", "not there"] }, { entityName: "nobody", observations: ["x"] }] }],
  ["open_nodes", { names: ["alice"] }],
  ["delete_relations", { relations: [r("bob", "knows", "alice"), r("bob", "knows", "nobody")] }],
  ["read_graph", {}],
  ["delete_entities", { entityNames: ["acme", "nobody"] }],
  ["read_graph", {}],
  ["delete_entities", { entityNames: ["ghost"] }],
  ["search_nodes", { query: "alice" }],
  ["create_entities", { entities: [e("acme", "organization", "reborn")] }],
  ["read_graph", {}],
  ["create_entities", { entities: [e("dup", "t", "first"), e("dup", "t", "second")] }, "duplicates within one call"],
  ["delete_entities", { entityNames: ["dup"] }],
  ["create_relations", { relations: [r("bob", "likes", "acme"), r("bob", "likes", "acme")] }, "duplicates within one call"],
  ["delete_relations", { relations: [r("bob", "likes", "acme")] }],
  ["create_entities", { entities: [e(" spaced ", "t", "a"), e("x".repeat(300), "t", "b"), e("kept", "t", "c")] }, "names too long for a record id"],
  ["delete_entities", { entityNames: [" spaced ", "x".repeat(300), "kept"] }],
  ["create_entities", { entities: [e("", "t", "empty name"), e("line\nbreak", "t", "x"), e("typed", " padded type ", "y"), e("fine", "t", "z"), e("~tilde", "~t", "a"), e("100%", "t\tab", "b")] }],
  ["create_relations", { relations: [r(" spaced ", "knows", "fine"), r("fine", "works at", "acme"), r("", " likes ", "line\nbreak"), r("~tilde", "knows", "100%")] }],
  ["create_relations", { relations: [r("fine", "knows", "x".repeat(300)), r("fine", "y".repeat(130), "acme"), r("fine", "knows", "typed")] }, "names too long for a record id"],
  ["delete_relations", { relations: [r("fine", "knows", "x".repeat(300)), r("fine", "y".repeat(130), "acme")] }],
  ["read_graph", {}],
  ["search_nodes", { query: "%" }],
  ["add_observations", { observations: [{ entityName: " fine ", contents: ["x"] }] }],
  ["open_nodes", { names: [" fine ", "", "fine"] }],
  ["delete_observations", { deletions: [{ entityName: " fine", observations: ["z"] }] }],
  ["delete_relations", { relations: [r(" spaced ", "knows", "fine"), r("fine", "works at", "acme")] }],
  ["search_nodes", { query: " fine" }],
  ["delete_entities", { entityNames: ["fine", "", "line\nbreak", "typed", "~tilde", "100%"] }],
  ["read_graph", {}],
  ["create_entities", { entities: [{ name: "bad" }] }, "input validation message"],
  ["create_entities", { entities: big }, "bounded answer"],
  ["search_nodes", { query: "harbour" }, "bounded answer"],
  ["read_graph", {}, "bounded answer"],
  ["search_nodes", { query: "topic 7" }],
  ["open_nodes", { names: ["topic 7", "topic 70", "alice"] }],
  ["delete_entities", { entityNames: big.map((x) => x.name) }],
  ["read_graph", {}],
];

let compared = 0, identical = 0;
const known = {};
const failures = [];
const fail = (i, tool, msg) => failures.push(`call ${i} ${tool}: ${msg}`);

// storable: Lore keeps every name the reference does, escaped when it is
// not a valid record id (docs/SERVER.md), except one too long for an id
// (256 bytes), a kind or a relation name (128). The session's values are
// ASCII and either short or well over the limit, so their length decides.
const fits = (s, max) => Buffer.byteLength(s) < max;
function storable(x) {
  if ("name" in x) return fits(x.name, 256) && fits(x.entityType, 128);
  return fits(x.from, 256) && fits(x.to, 256) && fits(x.relationType, 128);
}

async function call(side, tool, args) {
  try {
    return await side.c.callTool({ name: tool, arguments: args });
  } catch (err) {
    return { thrown: String(err) };
  }
}

function check(i, tool, args, kd, a, b) {
  compared++;
  if (b.thrown) return fail(i, tool, `lore: ${b.thrown}`);
  const at = a.content?.[0]?.text, bt = b.content?.[0]?.text;
  if (!kd) {
    if (!!a.isError !== !!b.isError) return fail(i, tool, `isError ${a.isError} vs ${b.isError}: ${bt}`);
    if (isDeepStrictEqual(a.structuredContent, b.structuredContent) && at === bt) { identical++; return; }
    return fail(i, tool, `differs:\nreference ${JSON.stringify(a.structuredContent ?? at)}\nlore      ${JSON.stringify(b.structuredContent ?? bt)}\ntexts equal: ${at === bt}`);
  }
  known[kd] = (known[kd] ?? 0) + 1;
  const sa = a.structuredContent, sb = b.structuredContent;
  switch (kd) {
    case "duplicates within one call": {
      // The reference stores both; Lore stores the first, names the other.
      const list = sa.entities ? "entities" : "relations";
      const firsts = sa[list].filter((x, j) => sa[list].findIndex((y) => JSON.stringify(y) === JSON.stringify(x) || (list === "entities" && y.name === x.name)) === j);
      if (!isDeepStrictEqual(sb[list], firsts)) fail(i, tool, `lore kept ${JSON.stringify(sb[list])}, want ${JSON.stringify(firsts)}`);
      if (!b._meta?.["lore/refused"]?.length) fail(i, tool, "no lore/refused in _meta");
      break;
    }
    case "names too long for a record id": {
      // Lore stores the items whose names fit its rules, in the
      // reference's order, and names each of the others.
      const list = sa.entities ? "entities" : "relations";
      const want = sa[list].filter(storable);
      const refused = (args.entities ?? args.relations).filter((x) => !storable(x)).length;
      if (!isDeepStrictEqual(sb[list], want)) fail(i, tool, `lore stored ${JSON.stringify(sb[list])}, want ${JSON.stringify(want)}`);
      if (b._meta?.["lore/refused"]?.length !== refused) fail(i, tool, `refused ${JSON.stringify(b._meta)}, want ${refused} items`);
      break;
    }
    case "input validation message":
      if (!a.isError || !b.isError) fail(i, tool, `isError ${a.isError} vs ${b.isError}`);
      break;
    case "bounded answer": {
      const list = sa.entities;
      const n = sb.entities.length;
      if (n === 0 || n >= list.length) fail(i, tool, `lore showed ${n} of ${list.length} entities; want a cut`);
      if (!isDeepStrictEqual(sb.entities, list.slice(0, n))) fail(i, tool, "lore's entities are not a prefix of the reference's");
      if (!b._meta?.["lore/deferred"]) fail(i, tool, "no lore/deferred in _meta");
      if (!(b.content.length >= 2 && /left out|not shown/.test(b.content[1].text))) fail(i, tool, `no note block: ${JSON.stringify(b.content.slice(1))}`);
      break;
    }
    default:
      fail(i, tool, `unknown difference ${kd}`);
  }
}

// Tools: the same names, input and output schemas, annotations.
const [ta, tb] = [await ref.c.listTools(), await lo.c.listTools()];
for (const t of ta.tools) {
  const u = tb.tools.find((x) => x.name === t.name);
  compared++;
  if (!u) { fail("tools", t.name, "missing in lore"); continue; }
  const same = ["title", "inputSchema", "outputSchema", "annotations"].every((k) => isDeepStrictEqual(t[k], u[k]));
  if (same) identical++; else fail("tools", t.name, `definition differs:\n${JSON.stringify(t)}\n${JSON.stringify(u)}`);
}

// Subscribe to the graph resource on both sides.
await ref.c.subscribeResource({ uri: "memory://knowledge-graph" });
await lo.c.subscribeResource({ uri: "memory://knowledge-graph" });

for (const [i, [tool, args, kd]] of session.entries()) {
  const [a, b] = [await call(ref, tool, args), await call(lo, tool, args)];
  if (a.thrown) throw new Error(`reference threw on call ${i} ${tool}: ${a.thrown}`);
  check(i, tool, args, kd, a, b);
  const note = kd ? ` (known: ${kd})` : "";
  console.log(`${String(i).padStart(2)} ${tool} ${JSON.stringify(args).slice(0, 70)}${note}`);
}

// The resource, read on both sides at the end of the session.
const [ra, rb] = [await ref.c.readResource({ uri: "memory://knowledge-graph" }), await lo.c.readResource({ uri: "memory://knowledge-graph" })];
compared++;
if (ra.contents[0].text === rb.contents[0].text && ra.contents[0].mimeType === rb.contents[0].mimeType) identical++;
else fail("resource", "read", `differs:\n${ra.contents[0].text}\n${rb.contents[0].text}`);
await new Promise((res) => setTimeout(res, 300));
const writes = session.filter(([tool]) => /^(create|add|delete)_/.test(tool)).length;
compared++;
if (ref.updates.length > 0 && lo.updates.length === ref.updates.length) identical++;
else fail("notifications", "resources/updated", `reference ${ref.updates.length}, lore ${lo.updates.length} (of ${writes} write calls)`);

await ref.c.close();
await lo.c.close();
rmSync(dir, { recursive: true, force: true });

console.log(`\n${session.length} calls in the session; ${compared} answers compared: ${identical} identical`);
for (const [k, n] of Object.entries(known)) console.log(`  documented difference "${k}": ${n} call(s), checked`);
if (failures.length) {
  console.log(`\n${failures.length} unexpected difference(s):\n` + failures.join("\n\n"));
  process.exit(1);
}
console.log("ok: no unexpected difference");

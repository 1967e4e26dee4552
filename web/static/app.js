// The page of `lore serve --http`: everything it shows comes from the
// JSON API under /v1 (docs/SERVER.md). No framework and no build step.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  ns: '', next: '', records: [], selected: '',
  token: sessionStorage.getItem('lore-token') || '',
  lastRequest: null,
};
const svgNS = 'http://www.w3.org/2000/svg';
const maxGraphNodes = 60; // the picture stays readable; the rest is counted

// api calls the JSON API and returns its answer, or throws its error.
async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (state.token) headers.Authorization = 'Bearer ' + state.token;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch { data = { error: text }; }
  if (res.status === 401) {
    $('token-form').hidden = false;
    throw new Error(data.error || 'this server needs its bearer token');
  }
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function say(message, bad) {
  $('status').textContent = message;
  $('status').className = bad ? 'bad' : '';
}

// guarded runs an action, showing its error instead of throwing it.
function guarded(fn) {
  return async (...args) => {
    try { await fn(...args); } catch (e) { say(e.message, true); }
  };
}

const seg = encodeURIComponent;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

async function loadNamespaces() {
  const d = await api('GET', '/v1/namespaces');
  const sel = $('ns');
  sel.replaceChildren(...d.namespaces.map((ns) => el('option', { value: ns, textContent: ns })));
  if (d.namespaces.length === 0) {
    say('this store holds no records yet');
    return;
  }
  await pickNamespace(sel.value);
}

async function pickNamespace(ns) {
  Object.assign(state, { ns, next: '', records: [], selected: '' });
  $('records').replaceChildren();
  $('graph').replaceChildren();
  $('record-body').textContent = '';
  $('record-title').textContent = 'Pick a record';
  $('graph-controls').hidden = true;
  await loadRecords();
  say(`${ns}: ${state.records.length}${state.next ? '+' : ''} records`);
}

async function loadRecords() {
  const q = new URLSearchParams({ limit: '50' });
  if (state.next) q.set('after', state.next);
  const d = await api('GET', `/v1/records/${seg(state.ns)}?${q}`);
  state.records.push(...d.records);
  state.next = d.next || '';
  renderRecords();
}

function renderRecords() {
  const f = $('filter').value.toLowerCase();
  const items = [];
  for (const r of state.records) {
    if (f && !`${r.id} ${r.kind || ''} ${r.title || ''}`.toLowerCase().includes(f)) continue;
    const b = el('button', { type: 'button', title: r.title || '', className: r.id === state.selected ? 'sel' : '' },
      r.id, el('span', { className: 'kind', textContent: r.kind || '' }));
    b.dataset.id = r.id;
    b.addEventListener('click', guarded(() => selectRecord(r.id)));
    items.push(el('li', {}, b));
  }
  $('records').replaceChildren(...items);
  $('more').hidden = !state.next;
}

async function selectRecord(id) {
  state.selected = id;
  renderRecords();
  const rec = await api('GET', `/v1/records/${seg(state.ns)}/${seg(id)}`);
  $('record-title').textContent = `${rec.title || rec.id} (${rec.kind || 'record'})`;
  $('record-body').textContent = rec.body || '';
  $('graph-controls').hidden = false;
  await drawGraph(id);
}

// drawGraph draws the records linked to id within the hops chosen: id
// in the middle, the first hop on a ring around it, the second outside.
async function drawGraph(id) {
  const d = await api('GET', `/v1/neighbors/${seg(state.ns)}/${seg(id)}?hops=${$('hops').value}`);
  const shown = d.neighbors.slice(0, maxGraphNodes);
  const nodes = new Map([[id, { id, hops: 0 }]]);
  for (const n of shown) nodes.set(n.id, { id: n.id, hops: n.hops });
  const edges = [];
  for (const n of shown) {
    const v = n.via;
    if (nodes.has(v.from) && nodes.has(v.to)) edges.push(v);
  }
  const [w, h] = [600, 360];
  const rings = [[], [], []];
  for (const n of nodes.values()) rings[n.hops].push(n);
  rings.forEach((ring, hops) => ring.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / ring.length - Math.PI / 2 + hops * 0.3;
    n.x = w / 2 + Math.cos(angle) * hops * (w / 2 - 70) / 2;
    n.y = h / 2 + Math.sin(angle) * hops * (h / 2 - 30) / 2;
  }));
  const g = $('graph');
  g.replaceChildren();
  for (const e of edges) {
    const a = nodes.get(e.from), b = nodes.get(e.to);
    g.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'edge' }, svg('title', {}, `${e.from} ${e.rel} ${e.to}`)));
  }
  for (const n of nodes.values()) {
    const node = svg('g', { class: `node hop${n.hops}`, tabindex: 0 },
      svg('circle', { cx: n.x, cy: n.y, r: n.hops === 0 ? 9 : 6 }),
      svg('text', { x: n.x + 10, y: n.y + 4 }, n.id),
      svg('title', {}, n.id));
    node.addEventListener('click', guarded(() => selectRecord(n.id)));
    g.append(node);
  }
  if (d.neighbors.length > shown.length || d.deferred) {
    const more = d.neighbors.length - shown.length + (d.deferred ? d.deferred.count : 0);
    g.append(svg('text', { x: 8, y: h - 8, class: 'more' }, `and ${more} more linked records`));
  }
}

function packetRequest() {
  const r = { ns: state.ns };
  const focus = $('focus').value.split(',').map((s) => s.trim()).filter(Boolean);
  if (focus.length) r.focus = focus;
  const fields = { query: 'query', task: 'task', profile: 'profile', budget: 'budget' };
  for (const [key, id] of Object.entries(fields)) {
    const v = $(id).value.trim();
    if (v) r[key] = v;
  }
  return r;
}

async function buildPacket(ev) {
  ev.preventDefault();
  const req = packetRequest();
  say('building...');
  const a = await api('POST', '/v1/packet', req);
  state.lastRequest = req;
  renderBar(a);
  renderDeferred(a);
  $('packet-text').textContent = a.packet;
  const warn = (a.warnings || []).join('; ');
  say(`packet: ${(a.records || []).length} records, ${a.tokens.toLocaleString()} of ${a.budget.toLocaleString()} tokens${warn ? ' · ' + warn : ''}`);
}

// renderBar draws the budget as a bar: a segment a record, as wide as
// its share of the budget and coloured by its rank, then the frame (the
// headings and notes) and the room left.
function renderBar(a) {
  const budget = a.budget;
  const records = a.records || [];
  const pct = (n) => `${Math.max(0, (100 * n) / budget)}%`;
  const segs = [];
  let content = 0;
  for (const r of records) {
    content += r.tokens;
    const s = el('button', { type: 'button', className: `seg rank${Math.min(r.rank, 11)}`,
      title: `${r.id} · rank ${r.rank} · ${r.kind || ''} · ${r.form} · ${r.tokens} tokens · ${r.why}` });
    s.style.width = pct(r.tokens);
    s.dataset.id = r.id;
    s.addEventListener('click', guarded(() => why(r.id)));
    segs.push(s);
  }
  const frame = el('span', { className: 'seg frame', title: `frame and notes: ${Math.max(0, a.tokens - content)} tokens` });
  frame.style.width = pct(a.tokens - content);
  const free = el('span', { className: 'seg free', title: `left: ${budget - a.tokens} tokens` });
  free.style.width = pct(budget - a.tokens);
  $('bar').replaceChildren(...segs, frame, free);
  $('summary').textContent = `${a.tokens.toLocaleString()} of ${budget.toLocaleString()} tokens (${Math.round((100 * a.tokens) / budget)}%) · ${records.length} records · ${a.hash.slice(0, 17)}`;
  const ranks = [...new Set(records.map((r) => Math.min(r.rank, 11)))].sort((x, y) => x - y);
  $('legend').replaceChildren(...ranks.map((k) => el('span', { className: `key rank${k}`, textContent: `rank ${k}` })),
    el('span', { className: 'key frame', textContent: 'frame' }), el('span', { className: 'key free', textContent: 'left' }));
}

// renderDeferred lists the deferred records: every note of the answer
// (the packet itself lists the most important and groups the rest).
function renderDeferred(a) {
  const items = [];
  for (const n of a.deferred || []) {
    const b = el('button', { type: 'button', textContent: n.id });
    b.dataset.id = n.id;
    b.addEventListener('click', guarded(() => why(n.id)));
    items.push(el('li', {}, b, ` ${n.kind || ''} · rank ${n.rank} · ${n.tokens.toLocaleString()} tokens · ${n.reason}`));
  }
  if (a.deferred_in_packet) items.push(el('li', { className: 'group' }, `${a.deferred_in_packet} deferred records: the packet's own notes list them`));
  if (items.length === 0) items.push(el('li', {}, 'nothing: every candidate fitted'));
  $('deferred').replaceChildren(...items);
}

async function why(id) {
  if (!state.lastRequest) return;
  const v = await api('POST', '/v1/why', { ...state.lastRequest, id });
  const lines = [`${v.id}${v.kind ? ' (' + v.kind + ')' : ''}: ${v.status}`];
  if (v.status === 'in') lines.push(`rank ${v.rank}, ${v.form}, ${v.tokens} tokens`, `brought in by: ${v.rule}`);
  if (v.reason) lines.push(v.reason);
  if (v.whole_at) lines.push(`whole from budget ${v.whole_at.toLocaleString()}`);
  if (v.comes_in_at) lines.push(`comes in${v.change ? ' with ' + v.change : ''} at budget ${v.comes_in_at.toLocaleString()}`);
  if (v.status !== 'in' && !v.comes_in_at && v.tried) lines.push(`nothing tried brings it in (${v.tried.join(', ')})`);
  if (v.command) lines.push(v.command);
  $('why').textContent = lines.join('\n');
}

async function copyPacket() {
  const text = $('packet-text').textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($('packet-text'));
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    document.execCommand('copy');
  }
  say(`copied ${text.length.toLocaleString()} characters`);
}

function start() {
  $('ns').addEventListener('change', guarded((e) => pickNamespace(e.target.value)));
  $('more').addEventListener('click', guarded(loadRecords));
  $('filter').addEventListener('input', renderRecords);
  $('hops').addEventListener('change', guarded(() => state.selected && drawGraph(state.selected)));
  $('use-focus').addEventListener('click', () => { $('focus').value = state.selected; });
  $('packet-form').addEventListener('submit', guarded(buildPacket));
  $('copy').addEventListener('click', guarded(copyPacket));
  $('token-form').addEventListener('submit', guarded(async (e) => {
    e.preventDefault();
    state.token = $('token').value.trim();
    sessionStorage.setItem('lore-token', state.token);
    $('token-form').hidden = true;
    await loadNamespaces();
  }));
  guarded(loadNamespaces)();
}

start();

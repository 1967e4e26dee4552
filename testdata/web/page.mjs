// Drives the page of `lore serve --http` in Debian's headless Chromium
// (through playwright-core) on the demo canon, as a user would: pick a
// namespace, open a record and its graph, build a packet, ask why, copy
// the text; then the same page against a server that wants a token.
// Fails on any console error. Usage: node page.mjs LORE-BINARY SCREENSHOT.png
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [lore, shot] = process.argv.slice(2);
if (!lore || !shot) {
  console.error('usage: node page.mjs LORE-BINARY SCREENSHOT.png');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'lore-web-'));
const store = join(dir, 'demo');
const servers = [];
let browser;

function check(ok, what) {
  if (!ok) throw new Error(what);
  console.log('ok  ' + what);
}

// serve starts lore serve --http on a free loopback port and resolves
// to its address once it listens.
function serve(...extra) {
  return new Promise((resolve, reject) => {
    const p = spawn(lore, ['--store', store, 'serve', '--http', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    servers.push(p);
    let err = '';
    const timer = setTimeout(() => reject(new Error('lore serve did not listen in 30 s: ' + err)), 30000);
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(err);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    p.on('exit', (code) => reject(new Error(`lore serve exited ${code}: ${err}`)));
  });
}

async function main() {
  const demo = spawnSync(lore, ['demo', '--dir', store], { encoding: 'utf8' });
  check(demo.status === 0 || demo.status === 2, `lore demo --dir made the store (exit ${demo.status})`);
  const url = await serve();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(url + '/');
  await page.waitForFunction(() => document.querySelectorAll('#ns option').length >= 2);
  await page.selectOption('#ns', 'tidewater-lamp');
  await page.waitForSelector('#records button[data-id="scene-03"]');
  check(await page.locator('#records button').count() >= 20, 'the record list pages the namespace');
  await page.click('#records button[data-id="scene-03"]');
  await page.waitForFunction(() => document.querySelectorAll('#graph circle').length >= 3);
  check((await page.textContent('#record-title')).includes("The Surveyor's Chart"), 'a record opens with its title');
  const firstHop = await page.locator('#graph circle').count();
  await page.selectOption('#hops', '2');
  await page.waitForFunction((n) => document.querySelectorAll('#graph circle').length > n, firstHop);
  check(true, `the graph draws: ${firstHop} nodes at one hop, ${await page.locator('#graph circle').count()} at two`);

  await page.click('#use-focus');
  await page.selectOption('#task', 'draft');
  await page.selectOption('#profile', 'novel');
  await page.fill('#query', 'second light');
  await page.fill('#budget', '3000');
  await page.click('#build');
  await page.waitForSelector('#bar .seg[data-id]');
  const segs = await page.locator('#bar .seg[data-id]').count();
  check(segs >= 5, `the packet builds with its budget bar: ${segs} records`);
  check((await page.textContent('#packet-text')).startsWith('# Context Packet: tidewater-lamp'), 'the packet text is shown');
  check((await page.textContent('#summary')).includes('of 3,000 tokens'), 'the summary says the budget');
  const deferred = page.locator('#deferred button');
  check(await deferred.count() >= 1, 'deferred records are listed');
  const out = await deferred.first().textContent();
  await deferred.first().click();
  await page.waitForFunction((id) => document.querySelector('#why').textContent.startsWith(id), out);
  const whyOut = await page.textContent('#why');
  check(/deferred/.test(whyOut) && /comes in/.test(whyOut) && /lore packet /.test(whyOut), `why answers for a deferred record:\n${whyOut}`);
  await page.click('#bar .seg[data-id="scene-03"]');
  await page.waitForFunction(() => document.querySelector('#why').textContent.startsWith('scene-03'));
  check((await page.textContent('#why')).includes('brought in by: focus'), 'why answers for a record in the bar');
  await page.click('#copy');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  check(copied === await page.textContent('#packet-text'), 'Copy puts the packet text on the clipboard');
  await page.screenshot({ path: shot, fullPage: true });
  check(errors.length === 0, 'no console errors' + (errors.length ? ': ' + errors.join('; ') : ''));

  // A server with a token: the page asks for it, and then works.
  const locked = await serve('--token', 'page-test-token');
  const page2 = await context.newPage();
  page2.on('pageerror', (e) => errors.push(e.message));
  await page2.goto(locked + '/');
  await page2.waitForSelector('#token-form:not([hidden])');
  await page2.fill('#token', 'page-test-token');
  await page2.click('#token-form button');
  await page2.waitForFunction(() => document.querySelectorAll('#ns option').length >= 2);
  check(true, 'a server with a token: the page asks for it, then lists the namespaces');
  check(errors.length === 0, 'no page errors' + (errors.length ? ': ' + errors.join('; ') : ''));
}

try {
  await main();
  console.log('page test passed; screenshot ' + shot);
} catch (e) {
  console.error('page test FAILED: ' + e.message);
  process.exitCode = 1;
} finally {
  if (browser) await browser.close();
  for (const s of servers) s.kill();
  rmSync(dir, { recursive: true, force: true });
}

// Browser test: the results page (#/results) and the lazily loaded bundle it lives in
// (web/src/bin/lazy.rs, loaded by web/src/ui/lazy.rs). The fixtures are real outputs of
// `herdlab bench <mechanism> --quick --json`, the corpus of core's results-file fuzzing
// (core/tests/data/fuzz-results/), so the page is tested on what the command writes.
//
// - the page loads the bundle only when it is shown (not on the home page), draws a file's charts
//   and its table;
// - two files overlay: every series of the chart twice, named after its file;
// - a broken file and a foreign one get a message naming the file and the problem, and the page
//   keeps drawing the good ones;
// - axe finds no serious or critical violation with charts drawn;
// - the bundle's load failure (lazy_bg.wasm answered 404) shows the message and its "try again"
//   button, which loads it once it is back.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/results.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE, useBrowser, openPage } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../core/tests/data/fuzz-results');
const fixture = (name) => readFileSync(path.join(CORPUS, name));
const HERD = fixture('herd.json');
const HERD_ROWS = JSON.parse(HERD.toString('utf8')).length;
const HERD_VARIANTS = new Set(JSON.parse(HERD.toString('utf8')).map((r) => r.variant)).size;

useBrowser();

/** Opens #/results and waits for the bundle's view; returns the page and how many times the
 *  bundle's wasm was requested. */
async function openResults(t, opts) {
  const { page, assertNoPageErrors } = await openPage(t, opts);
  const wasmRequests = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/lazy_bg.wasm')) wasmRequests.push(r.url());
  });
  return { page, assertNoPageErrors, wasmRequests };
}

async function pick(page, files) {
  await page.setInputFiles('[data-testid="results-file"]', files);
}

test('the results page loads the bundle on demand and draws a recorded file', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors, wasmRequests } = await openResults(t);
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('[data-testid^="lesson-link-"]');
  assert.equal(wasmRequests.length, 0, 'the home page must not load the lazy bundle');
  const t0 = Date.now();
  await page.click('[data-testid="results-link"]');
  await page.waitForSelector('[data-testid="results-file"]');
  console.log(`results page: the lazy bundle loaded and mounted in ${Date.now() - t0} ms`);
  assert.equal(wasmRequests.length, 1);
  await pick(page, [{ name: 'herd.json', mimeType: 'application/json', buffer: HERD }]);
  await page.waitForSelector('[data-testid="results-chart"] svg');
  const group = page.locator('[data-testid="results-group"]');
  assert.equal(await group.getAttribute('data-mechanism'), 'herd');
  // herd's two charts, one series per variant in each
  assert.equal(await page.locator('[data-testid="results-chart"] svg > g[role="img"]').count(), 2);
  assert.equal(await page.locator('[data-testid="results-chart"] .series').count(), 2 * HERD_VARIANTS);
  assert.equal(await page.locator('[data-testid="results-table"] tbody tr').count(), HERD_ROWS);
  const head = await page.locator('[data-testid="results-table"] thead th').allTextContents();
  assert.deepEqual(head.slice(0, 3), ['variant', 'threads', 'events']);
  // away and back: the bundle is not loaded again
  await page.click('a[href="#/"]');
  await page.waitForSelector('[data-testid^="lesson-link-"]');
  await page.goto(`${BASE}/#/results`);
  await page.waitForSelector('[data-testid="results-file"]');
  assert.equal(wasmRequests.length, 1, 'the bundle is loaded once per page');
  assertNoPageErrors();
});

test('two files overlay; broken and foreign files get a message naming them', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openResults(t);
  await page.goto(`${BASE}/#/results`);
  await page.waitForSelector('[data-testid="results-file"]');
  const broken = HERD.subarray(0, Math.floor(HERD.length / 2));
  await pick(page, [
    { name: 'before.json', mimeType: 'application/json', buffer: HERD },
    { name: 'after.json', mimeType: 'application/json', buffer: HERD },
    { name: 'cut.json', mimeType: 'application/json', buffer: broken },
    { name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('[{"name": "x", "size": 3}]') },
  ]);
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="results-error"]').length === 2
      && document.querySelectorAll('[data-testid="results-table"]').length === 2,
  );
  const series = await page.locator('[data-testid="results-chart"] .series').count();
  assert.equal(series, 2 * 2 * HERD_VARIANTS, 'each file draws every series');
  const svg = await page.locator('[data-testid="results-chart"] svg').innerHTML();
  assert.match(svg, /before\.json: futex wake-all/);
  assert.match(svg, /after\.json: futex wake-all/);
  const errors = await page.locator('[data-testid="results-error"]').allTextContents();
  const cut = errors.find((e) => e.startsWith('cut.json'));
  const other = errors.find((e) => e.startsWith('other.json'));
  console.log(`results page messages:\n  ${errors.join('\n  ')}`);
  assert.match(cut, /JSON: line \d+ column \d+: EOF/);
  assert.match(other, /columns: row 1 has the columns \[name, size\].*herd \(threads/);
  // drag and drop reads too
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['{'], 'dropped.json', { type: 'application/json' }));
    const zone = document.querySelector('[data-testid="results-drop"]');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="results-error"]')]
    .some((e) => e.textContent.startsWith('dropped.json')));
  await page.click('[data-testid="results-clear"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="results-group"]'));
  assertNoPageErrors();
});

test('axe: no serious or critical violation on results with charts drawn', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openResults(t);
  await page.goto(`${BASE}/#/results`);
  await page.waitForSelector('[data-testid="results-file"]');
  await pick(page, [
    { name: 'herd.json', mimeType: 'application/json', buffer: HERD },
    { name: 'locks.json', mimeType: 'application/json', buffer: fixture('locks.json') },
    { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('nope') },
  ]);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="results-group"]').length === 2);
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, {
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  });
  assert.deepEqual(violations, []);
  assertNoPageErrors();
});

test('the bundle failing to load shows a message and "try again" loads it', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openResults(t, { quietConsole: /404|lazy_bg\.wasm|Failed to load/ });
  await page.route('**/lazy_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${BASE}/#/results`);
  const alert = page.locator('[data-testid="lazy-error"]');
  await alert.waitFor();
  const text = await alert.textContent();
  console.log(`lazy bundle load failure message: ${text}`);
  assert.match(text, /could not be loaded/);
  assert.equal(await page.locator('[data-testid="results-file"]').count(), 0);
  await page.unroute('**/lazy_bg.wasm');
  await page.click('[data-testid="lazy-retry"]');
  await page.waitForSelector('[data-testid="results-file"]');
  assert.equal(await alert.count(), 0);
  assertNoPageErrors();
});

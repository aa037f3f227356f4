// Browser test: `#/trace` (web/src/pages/trace.rs, issue #14 §2). A trace file of a native run
// opens in the timeline beside the simulation of its scenario, with the counters side by side;
// broken and foreign files get the reader's message (line and field), never a blank page; axe
// finds no serious violation. The file is recorded by the test itself with
// `herdlab bench herd --quick --trace FILE` when a herdlab binary is at hand ($HERDLAB_BIN, else
// target/release/herdlab or target/debug/herdlab), in a temporary folder removed afterwards;
// otherwise the checked-in fixtures/herd-quick.trace (recorded by that command) is used. The page
// lives in the lazily loaded bundle (web/src/bin/lazy.rs): the route waits for it.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/trace.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { BASE, useBrowser, openPage } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

useBrowser();

let dir;
let traceFile;
let recorded = false;

before(() => {
  const bin = [process.env.HERDLAB_BIN, path.join(ROOT, 'target/release/herdlab'), path.join(ROOT, 'target/debug/herdlab')]
    .filter(Boolean)
    .find((p) => existsSync(p));
  if (bin) {
    dir = mkdtempSync(path.join(os.tmpdir(), 'herdlab-trace-test-'));
    traceFile = path.join(dir, 'herd.trace');
    try {
      execFileSync(bin, ['bench', 'herd', '--quick', '--trace', traceFile], { stdio: 'ignore', timeout: 120_000 });
      recorded = true;
    } catch (e) {
      console.log(`could not record a trace with ${bin} (${e.message}); using the checked-in fixture`);
    }
  }
  if (!recorded) traceFile = path.join(HERE, 'fixtures/herd-quick.trace');
  console.log(`trace file: ${recorded ? 'recorded by this test' : 'checked-in fixture'}: ${traceFile}`);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens #/trace and waits for the lazy bundle to show the page. */
async function openTrace(page) {
  await page.goto(`${BASE}/#/trace`);
  await page.waitForSelector('[data-testid="lazy"][data-what="trace"] [data-testid="trace-page"], [data-testid="not-found"], [data-testid="lazy-error"]');
  assert.equal(await page.locator('[data-testid="trace-page"]').count(), 1, '#/trace shows its page');
}

test('a trace file opens beside its simulation, counters side by side', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTrace(page);
  await page.locator('[data-testid="trace-file"]').setInputFiles(traceFile);
  await page.waitForSelector('[data-testid="trace-timeline"] canvas[data-draw-ms]');
  const head = await page.locator('[data-testid="trace-head"]').textContent();
  assert.match(head, /recorded by herdlab /);
  assert.match(head, /herdlab bench herd --quick --trace/);
  // the first run: futex wake-all with 2 workers
  const runs = await page.locator('[data-testid="trace-run"] option').count();
  assert.equal(runs, 15, 'bench herd --quick: 5 rows × threads 2, 8, 32');
  assert.match(await page.locator('[data-testid="trace-scenario"]').textContent(), /mechanism=herd&workers=2/);
  const native = page.locator('[data-testid="trace-timeline"]');
  assert.ok(Number(await native.getAttribute('data-steps')) > 0, 'the run has events');
  assert.ok(Number(await native.getAttribute('data-wakeups')) > 0, 'the run has wakeups');
  // the simulation of the same scenario, beside it
  await page.waitForSelector('[data-testid="trace-sim-timeline"] canvas[data-draw-ms]');
  const rows = await page.locator('[data-testid="trace-counters"] tbody tr').count();
  assert.equal(rows, 7);
  const wasted = page.locator('[data-testid="trace-counters"] tbody tr', { hasText: 'wasted wakeups' });
  const cells = await wasted.locator('td').allTextContents();
  assert.ok(Number(cells[1]) > 0, `futex wake-all wastes wakeups in the simulation: ${cells}`);
  // another run: 8 workers
  await page.locator('[data-testid="trace-run"]').selectOption('5');
  await page.waitForFunction(() => document.querySelector('[data-testid="trace-scenario"]').textContent.includes('workers=8'));
  assertNoPageErrors();
});

test('the two timelines are linked: one window, zoomed or panned from either; unlinked they move apart', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTrace(page);
  await page.locator('[data-testid="trace-file"]').setInputFiles(traceFile);
  await page.waitForSelector('[data-testid="trace-sim-timeline"] canvas[data-draw-ms]');
  const link = page.locator('[data-testid="trace-link"]');
  assert.equal(await link.count(), 1, 'a "link the two timelines" checkbox');
  assert.ok(await link.isChecked(), 'linked by default');
  const view = async (id) => (await page.locator(`[data-testid="${id}"]`).getAttribute('data-view')).split('-').map(Number);
  const both = async () => [await view('trace-timeline'), await view('trace-sim-timeline')];
  let [n, s] = await both();
  assert.deepEqual(n, s, 'one window for both from the start');
  assert.equal(n[0], 0, 'both start at 0 ns');
  const nativeCanvas = page.locator('[data-testid="trace-timeline"] [data-testid="timeline-canvas"]');
  const simCanvas = page.locator('[data-testid="trace-sim-timeline"] [data-testid="timeline-canvas"]');
  // a zoom key on your run's timeline moves both
  await nativeCanvas.focus();
  await page.keyboard.press(']');
  const [n1, s1] = await both();
  assert.ok(n1[1] - n1[0] < n[1] - n[0], `] zooms in: ${n} -> ${n1}`);
  assert.deepEqual(s1, n1, 'the simulation follows the zoom');
  await page.keyboard.press('Shift+ArrowRight');
  const [n2, s2] = await both();
  assert.ok(n2[0] > n1[0], 'Shift+→ pans');
  assert.deepEqual(s2, n2, 'the simulation follows the pan');
  // and the other way
  await simCanvas.focus();
  await page.keyboard.press(']');
  const [n3, s3] = await both();
  assert.ok(s3[1] - s3[0] < s2[1] - s2[0]);
  assert.deepEqual(n3, s3, 'your run follows the simulation');
  // the wheel, too
  const box = await simCanvas.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 20);
  await page.mouse.wheel(0, 200);
  await page.waitForFunction(
    (w) => document.querySelector('[data-testid="trace-sim-timeline"]').dataset.view !== w,
    s3.join('-'),
  );
  const [n4, s4] = await both();
  assert.deepEqual(n4, s4, 'the wheel moves both');
  // unlinked: each moves alone
  await link.uncheck();
  await nativeCanvas.focus();
  await page.keyboard.press(']');
  const [n5, s5] = await both();
  assert.ok(n5[1] - n5[0] < n4[1] - n4[0]);
  assert.deepEqual(s5, s4, 'unlinked, the simulation stays');
  // linked again: one window
  await link.check();
  const [n6, s6] = await both();
  assert.deepEqual(n6, s6);
  assertNoPageErrors();
});

// The lazy-only mechanisms (gmp, mysql) simulate on #/trace too: their traces, recorded here
// when a herdlab binary is at hand, open beside the simulation of their scenario.
test('gmp and mysql traces open beside their simulation', { timeout: 180_000 }, async (t) => {
  if (!recorded) {
    t.skip('no herdlab binary to record gmp and mysql traces with');
    return;
  }
  const bin = [process.env.HERDLAB_BIN, path.join(ROOT, 'target/release/herdlab'), path.join(ROOT, 'target/debug/herdlab')]
    .filter(Boolean)
    .find((p) => existsSync(p));
  const cases = [
    ['gmp', ['bench', 'gmp', '--quick', '--workers', '2', '--runtimes', 'herdlab', '--shapes', 'ping_pong', '--rounds', '1'], /mechanism=gmp&gomaxprocs=2/],
    ['mysql', ['bench', 'mysql', '--quick'], /mechanism=mysql&mode=per-connection&connections=16/],
  ];
  const { page, assertNoPageErrors } = await openPage(t);
  await openTrace(page);
  for (const [name, args, scenario] of cases) {
    const file = path.join(dir, `${name}.trace`);
    execFileSync(bin, [...args, '--trace', file], { stdio: 'ignore', timeout: 120_000 });
    await page.locator('[data-testid="trace-file"]').setInputFiles(file);
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="trace-head"]')?.textContent.includes(`herdlab bench ${n}`),
      name,
    );
    assert.match(await page.locator('[data-testid="trace-scenario"]').textContent(), scenario, name);
    await page.waitForSelector('[data-testid="trace-sim-timeline"] canvas[data-draw-ms]');
    assert.equal(await page.locator('[data-testid="trace-sim-missing"]').count(), 0, `${name}: a simulation beside the run`);
    const sim = page.locator('[data-testid="trace-sim-timeline"]');
    assert.ok(Number(await sim.getAttribute('data-steps')) > 0, `${name}: the simulation ran`);
  }
  assertNoPageErrors();
});

test('broken and foreign files get a clear message, never a blank page', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTrace(page);
  const input = page.locator('[data-testid="trace-file"]');
  await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello\n') });
  const err = page.locator('[data-testid="trace-error"]');
  await err.waitFor();
  assert.equal(
    await err.textContent(),
    "Could not open notes.txt: line 1: format: not a herdlab trace (expected first line 'herdlab-trace 1', found 'hello')",
  );
  // a trace cut short names the line where it ends
  const good = readFileSync(traceFile);
  await input.setInputFiles({ name: 'cut.trace', mimeType: 'text/plain', buffer: good.subarray(0, 2000) });
  await page.waitForFunction(() => document.querySelector('[data-testid="trace-error"]')?.textContent.includes('cut.trace'));
  assert.match(await err.textContent(), /^Could not open cut\.trace: line \d+: \w+: /);
  // a bad event kind
  const bad = good.toString().replace(/^(\d+ \d+) wake$/m, '$1 snooze');
  await input.setInputFiles({ name: 'bad.trace', mimeType: 'text/plain', buffer: Buffer.from(bad) });
  await page.waitForFunction(() => document.querySelector('[data-testid="trace-error"]')?.textContent.includes('bad.trace'));
  assert.match(await err.textContent(), /line \d+: kind: 'snooze' is not an event kind; allowed: sleep, wake/);
  assert.equal(await page.locator('h1').textContent(), "Your machine's run beside the simulation");
  assertNoPageErrors();
});

test('axe: no serious or critical violation on #/trace with a file open', { timeout: 120_000 }, async (t) => {
  const { page } = await openPage(t);
  await openTrace(page);
  await page.locator('[data-testid="trace-file"]').setInputFiles(traceFile);
  await page.waitForSelector('[data-testid="trace-sim-timeline"] canvas[data-draw-ms]');
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  });
  assert.deepEqual(found, []);
});

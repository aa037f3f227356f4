// Browser tests for Go's scheduler on the site (mechanism=gmp, lesson go-scheduler), against
// docs/site-contract.md ("Go's scheduler"): its widgets live in the lazily loaded bundle only
// (web/src/bin/lazy.rs), so the lesson page shows `<Lazy what="sim"|"compare">` for each gmp block
// and the bundle draws the widget. They depend on the lesson's block ids (gmp-single, gmp-ring,
// gmp-steal, gmp-spin, the playground gmp-playground, the comparisons COMPARES), on the figures
// core/tests/lesson_figures.rs holds for them, and on
// the scenario of `gmp-ring` (one P, a 4-slot ring, main starting 9 goroutines), whose numbers
// web/src/mechanisms/gmp/snapshot.rs (`the_ring_scenario_of_the_browser_test`) pins.
//
// The system-call blocks (gmp-syscall, gmp-syscall-noretake, gmp-hog) depend on the counts
// core/tests/gmp_sysmon.rs pins for the same scenarios (5 retakes and hand-offs; 1 preemption).
// The LockOSThread block (gmp-locked) on those core/tests/gmp_locked.rs pins (20 startlockedm,
// 20 stoplockedm, 21 parks).
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/gmp.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { BASE, useBrowser, openPage as openBrowserPage, sel, waitForSim, waitForSteps } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const LESSON = `${BASE}/#/lesson/go-scheduler`;
const TEST_TIMEOUT = 90_000;

useBrowser();

const openPage = (t, options) => openBrowserPage(t, { quietConsole: /favicon|status of 404/, ...options });

async function num(page, testid, sim) {
  const s = (await page.locator(sel(testid, sim)).first().textContent()).trim();
  const n = Number(s);
  assert.ok(Number.isFinite(n), `${testid} should be a plain number, got ${JSON.stringify(s)}`);
  return n;
}

/** Where every G is: each P's runnext and ring, and the global queue. */
async function places(page, sim) {
  return page.evaluate((sim) => {
    const root = document.querySelector(`[data-testid="sim-${sim}"]`);
    const ps = [...root.querySelectorAll('[data-testid^="gmp-p-"]')].map((p) => ({
      runnext: p.dataset.runnext,
      ring: p.dataset.ring,
    }));
    return { ps, global: root.querySelector('[data-testid="gmp-global"]').dataset.gs };
  }, sim);
}

/** The lesson's comparisons (```herdlab-compare```, two G/M/P simulations side by side). */
const COMPARES = ['gmp-cmp-1012', 'gmp-cmp-steal-one', 'gmp-cmp-spin', 'gmp-cmp-herd'];

/** Waits until comparison `cmp` is drawn (both halves with their step counters). */
async function waitForCompare(page, cmp) {
  await page.waitForSelector(`[data-testid="sim-${cmp}"][data-widget="compare"]`);
  for (const side of ['left', 'right']) await page.waitForSelector(sel('counter-steps', `${cmp}-${side}`));
}

/** Run comparison `cmp` to its end; every invariant held on both sides. */
async function compareToEnd(page, cmp) {
  await page.locator(sel('run-end', cmp)).click();
  await page.waitForFunction((s) => document.querySelector(`[data-testid="sim-${s}"] [data-testid="run-end"]`)?.disabled, cmp);
  for (const side of ['left', 'right']) {
    assert.equal((await page.locator(sel('invariant-status', `${cmp}-${side}`)).textContent()).trim(), 'all invariants hold', `${cmp} ${side}`);
  }
}

/** The table's left, right and difference of each counter `keys` of comparison `cmp`. */
async function cells(page, cmp, keys) {
  const out = [];
  for (const k of keys) {
    const row = [];
    for (const c of ['left', 'right', 'diff']) row.push(Number((await page.locator(sel(`${c}-${k}`, cmp)).textContent()).trim()));
    out.push(row);
  }
  return out;
}

/** Run widget `sim` to its end and check that every invariant held. */
async function runToEnd(page, sim) {
  await page.locator(sel('run-end', sim)).click();
  await page.waitForFunction((s) => document.querySelector(`[data-testid="sim-${s}"] [data-testid="run-end"]`)?.disabled, sim);
  assert.equal((await page.locator(sel('invariant-status', sim)).textContent()).trim(), 'all invariants hold');
}

/** The counters `names` of widget `sim`, in order. */
async function counters(page, sim, names) {
  const out = [];
  for (const n of names) out.push(await num(page, `counter-${n}`, sim));
  return out;
}

test('a gmp block is drawn by the lazy bundle: stepping moves goroutines through runnext, the ring and the global queue', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const wasm = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/lazy_bg.wasm')) wasm.push(r.url());
  });
  await page.goto(LESSON);
  await waitForSim(page, 'gmp-ring');
  assert.equal(wasm.length, 1, 'the lazy bundle is loaded once for all the lesson\'s gmp blocks');
  assert.equal(await page.locator('[data-testid="lazy"][data-what="sim"]').count(), 12);
  assert.equal(await page.locator('[data-testid="lazy"][data-what="compare"]').count(), COMPARES.length);
  assert.equal(await page.locator('[data-testid="lazy-error"], [data-testid="lazy-widget-error"]').count(), 0);
  const ring = 'gmp-ring';
  assert.equal(await page.locator(`[data-testid="sim-${ring}"]`).getAttribute('data-mechanism'), 'gmp');
  for (const id of ['lane-0', 'lane-1', 'gmp-p-0', 'gmp-global', 'invariant-status']) {
    assert.equal(await page.locator(sel(id, ring)).count(), 1, `${id} in ${ring}`);
  }
  assert.equal(await page.locator(sel('gmp-p-1', ring)).count(), 0, 'one P');
  assert.equal(await num(page, 'counter-steps', ring), 0);
  assert.deepEqual(await places(page, ring), { ps: [{ runnext: '0', ring: '' }], global: '' });

  // step until main's first `go f()` lands: G2 in runnext (main, G1, passed through it first)
  let steps = 0;
  const stepUntil = async (done, most) => {
    while (!done(await places(page, ring))) {
      await page.locator(sel('step-forward', ring)).click();
      await waitForSteps(page, ring, ++steps);
      assert.ok(steps <= most, `within ${most} steps`);
    }
  };
  await stepUntil((s) => s.ps[0].runnext === '2', 100);
  assert.deepEqual(await places(page, ring), { ps: [{ runnext: '2', ring: '' }], global: '' });
  // the next start kicks G2 onto the ring
  await stepUntil((s) => s.ps[0].ring !== '', 300);
  assert.deepEqual((await places(page, ring)).ps[0], { runnext: '3', ring: '2' });
  // and the sixth spills the two oldest and the kicked G6 into the global queue
  await stepUntil((s) => s.global.split(',').length === 3, 800);
  assert.deepEqual(await places(page, ring), { ps: [{ runnext: '7', ring: '4,5' }], global: '2,3,6' });
  assert.equal(await num(page, 'counter-context_switches', ring), 1, 'only main has run');

  await page.locator(sel('run-end', ring)).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sim-gmp-ring"] [data-testid="run-end"]')?.disabled);
  assert.equal(await num(page, 'counter-finished', ring), 10);
  assert.equal(await num(page, 'counter-global_queue_gets', ring), 4);
  assert.equal(await num(page, 'counter-context_switches', ring), 10);
  assert.equal((await page.locator(sel('invariant-status', ring)).textContent()).trim(), 'all invariants hold');
  assert.deepEqual(await places(page, ring), { ps: [{ runnext: '0', ring: '' }], global: '' });
  assertNoPageErrors();
});

test('an idle P steals half of a busy P\'s queue in one steal; steal-one needs four', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  const id = 'gmp-steal';
  await waitForSim(page, id);
  assert.equal(await page.locator(`[data-testid="sim-${id}"]`).getAttribute('data-mechanism'), 'gmp');
  assert.equal(await page.locator(sel('gmp-p-1', id)).count(), 1, 'two Ps');
  // step until the first steal; the Gs queued on P0 just before it are split: P0 keeps at most
  // half of its ring, and no G is lost or doubled (P1 runs one of the stolen Gs at once)
  let steps = 0;
  let before = null;
  while ((await num(page, 'counter-steals', id)) === 0) {
    before = await places(page, id);
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, ++steps);
    assert.ok(steps <= 2000, 'a steal within 2000 steps');
  }
  const after = await places(page, id);
  const ringLen = (p) => (p.ring === '' ? 0 : p.ring.split(',').length);
  const n = ringLen(before.ps[0]);
  assert.ok(n >= 2, `P0's ring held ${n} Gs before the steal`);
  assert.equal(ringLen(after.ps[0]), Math.floor(n / 2), 'the thief took half of the ring');
  const p1Gs = after.ps[1].ring === '' ? [] : after.ps[1].ring.split(',');
  const p0Gs = after.ps[0].ring === '' ? [] : after.ps[0].ring.split(',');
  for (const g of p1Gs) assert.ok(before.ps[0].ring.split(',').includes(g), `G${g} on P1 came from P0's ring`);
  for (const g of p1Gs) assert.ok(!p0Gs.includes(g), `G${g} is in one ring only`);

  const runEnd = async (sim) => {
    await page.locator(sel('run-end', sim)).click();
    await page.waitForFunction((s) => document.querySelector(`[data-testid="sim-${s}"] [data-testid="run-end"]`)?.disabled, sim);
    assert.equal((await page.locator(sel('invariant-status', sim)).textContent()).trim(), 'all invariants hold');
  };
  await runEnd(id);
  assert.equal(await num(page, 'counter-steals', id), 1);
  assert.equal(await num(page, 'counter-finished', id), 9);

  // spinning Ms in a chain: each go wakes one, which finds nothing and parks
  await runEnd('gmp-spin');
  assert.deepEqual(
    [await num(page, 'counter-spins', 'gmp-spin'), await num(page, 'counter-parks', 'gmp-spin'), await num(page, 'counter-steals', 'gmp-spin'), await num(page, 'counter-finished', 'gmp-spin')],
    [10, 9, 0, 10],
  );
  assertNoPageErrors();
});

test('the comparisons step both designs together and end with the lesson\'s counts: the 2012 queue, steal one, the spinning rules', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  for (const id of COMPARES) await waitForCompare(page, id);
  assert.equal(await page.locator('[data-testid="block-error"]').count(), 0, 'every block parses');

  const s = 'gmp-cmp-steal-one';
  assert.equal(await page.locator(`[data-testid="sim-${s}"]`).getAttribute('data-mechanism'), 'gmp');
  assert.match(await page.locator(`[data-testid="sim-${s}-left"] .half-title`).textContent(), /left: correct/);
  assert.match(await page.locator(`[data-testid="sim-${s}-right"] .half-title`).textContent(), /right: steal-one/);
  // one click steps both sides
  for (let i = 1; i <= 3; i++) {
    await page.locator(sel('step-forward', s)).click();
    await waitForSteps(page, `${s}-left`, i);
    await waitForSteps(page, `${s}-right`, i);
  }
  await compareToEnd(page, s);
  // steal half: one steal; steal one: four, for the same 9 goroutines (the lesson's figures)
  assert.deepEqual(await cells(page, s, ['steals', 'finished']), [[1, 4, 3], [9, 9, 0]]);

  // Go 1.0's single queue: every goroutine through the one lock (40 takes); today's: 11, and steals
  const y = 'gmp-cmp-1012';
  await compareToEnd(page, y);
  assert.deepEqual(await cells(page, y, ['global_queue_gets', 'steals', 'finished']), [[40, 11, -29], [0, 3, 3], [40, 40, 0]]);

  // the spinning limit never bites here; wakep without its test is a small herd: 16 parks and
  // 16 futex wakes against 10 for 41 goroutines
  const sp = 'gmp-cmp-spin';
  await compareToEnd(page, sp);
  const [spins] = await cells(page, sp, ['spins']);
  assert.equal(spins[0], 29);
  assert.equal(spins[1], 29);
  const h = 'gmp-cmp-herd';
  await compareToEnd(page, h);
  assert.deepEqual(await cells(page, h, ['parks', 'futex_wakes', 'finished']), [[10, 16, 6], [10, 16, 6], [41, 41, 0]]);
  assertNoPageErrors();
});

test('a blocked M loses its P to sysmon\'s retake; without the retake the P waits; a hog is preempted', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  const id = 'gmp-syscall';
  await waitForSim(page, id);
  // 6 Ms and sysmon, one P
  assert.equal(await page.locator(sel('lane-6', id)).count(), 1, 'a lane for sysmon');
  assert.match(await page.locator(sel('lane-6', id)).textContent(), /sysmon/);
  assert.equal(await page.locator(sel('gmp-p-1', id)).count(), 0, 'one P');
  // step until P0 belongs to another M while M0 is still in main's syscall (sysmon's first look,
  // after its 20 us sleep, retakes it and hands it off)
  let steps = 0;
  const owner = async () => page.locator(sel('gmp-p-0', id)).getAttribute('data-owner');
  let sawSyscall = false;
  while (!['M1', 'M2', 'M3', 'M4', 'M5'].includes(await owner())) {
    if ((await page.locator(sel('gmp-p-0', id)).textContent()).includes('_Psyscall')) sawSyscall = true;
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, ++steps);
    assert.ok(steps <= 400, 'a hand-off within 400 steps');
  }
  assert.ok(sawSyscall, 'P0 was shown in _Psyscall before the hand-off');
  assert.equal(await num(page, 'counter-retakes', id), 1);
  assert.equal(await num(page, 'counter-handoffs', id), 1);

  const runEnd = async (sim) => {
    await page.locator(sel('run-end', sim)).click();
    await page.waitForFunction((s) => document.querySelector(`[data-testid="sim-${s}"] [data-testid="run-end"]`)?.disabled, sim);
  };
  await runEnd(id);
  assert.deepEqual(
    [await num(page, 'counter-retakes', id), await num(page, 'counter-handoffs', id), await num(page, 'counter-finished', id)],
    [5, 5, 8],
  );
  assert.equal((await page.locator(sel('invariant-status', id)).textContent()).trim(), 'all invariants hold');
  // without the retake: step until sysmon has seen main's syscall for a tick with Gs waiting
  // (the widget shows the invariant the current state breaks)
  const nr = 'gmp-syscall-noretake';
  steps = 0;
  while ((await page.locator(sel('invariant-status', nr)).getAttribute('data-invariant')) !== 'syscall-retake') {
    await page.locator(sel('step-forward', nr)).click();
    await waitForSteps(page, nr, ++steps);
    assert.ok(steps <= 600, 'syscall-retake broken within 600 steps');
  }
  assert.equal(await page.locator(sel('gmp-p-0', nr)).getAttribute('data-owner'), 'none', 'P0 stays with its blocked M');
  await runEnd(nr);
  assert.deepEqual([await num(page, 'counter-retakes', nr), await num(page, 'counter-handoffs', nr)], [0, 0]);
  const hog = 'gmp-hog';
  await runEnd(hog);
  assert.deepEqual([await num(page, 'counter-preemptions', hog), await num(page, 'counter-finished', hog)], [1, 8]);
  assert.equal((await page.locator(sel('invariant-status', hog)).textContent()).trim(), 'all invariants hold');
  assertNoPageErrors();
});

test('a goroutine locked to its thread: each of its 20 returns is a stoplockedm and a startlockedm', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  const id = 'gmp-locked';
  await waitForSim(page, id);
  assert.equal(await num(page, 'counter-locked_handoffs', id), 0);
  await runToEnd(page, id);
  assert.deepEqual(await counters(page, id, ['locked_handoffs', 'lockedm_parks', 'parks', 'finished']), [20, 20, 21, 9]);
  assertNoPageErrors();
});

test('goyield: the lesson\'s widget runs G1 to its end before G2 leaves the global queue, in the counts the lesson gives', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  const id = 'gmp-goyield';
  await waitForSim(page, id);
  // step through the run, noting which G each of the M's runs (`ran N`) starts, and where the
  // queues stand the first time G1 goyields (back on P0's ring, G2 still on the global queue)
  const byRun = new Map();
  let sawYield = false;
  for (let i = 0; i < 300 && byRun.size < 8; i++) {
    const lane = await page.evaluate((s) => document.querySelector(`[data-testid="sim-${s}"] [data-testid="lane-0"]`).textContent, id);
    const m = /· (G\d+) · ran (\d+)/.exec(lane);
    if (m && !byRun.has(m[2])) byRun.set(m[2], m[1]);
    const q = await places(page, id);
    if (!sawYield && q.ps[0].ring === '1') {
      sawYield = true;
      assert.equal(q.global, '2', 'G2 waits on the global queue while G1 sits on P0\'s ring');
    }
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, i + 1);
  }
  assert.ok(sawYield, 'G1 was seen on P0\'s ring after a goyield');
  assert.deepEqual([...byRun.keys()].map(Number).sort((a, b) => a - b).map((k) => byRun.get(String(k))), ['G1', 'G1', 'G1', 'G1', 'G2', 'G2', 'G2', 'G2']);
  await runToEnd(page, id);
  assert.deepEqual(await counters(page, id, ['global_queue_gets', 'context_switches', 'steps', 'finished']), [2, 8, 196, 2]);
  assertNoPageErrors();
});

// `herdlab check gmp --variant reversed-dance`'s link (2026-12-06): the checker's 87 steps as the
// site steps them, each futex_wait's entry step given to the M that took the checker's step
// (core's `invariants::full_schedule`), 88 in all. The lesson's playground (`gmp-playground`, a
// block of the lazily loaded bundle) takes the page query.
const DANCE_QUERY = 'mechanism=gmp&gomaxprocs=2&threads=3&cpus=2&workload=fan-out&goroutines=3&work_ns=1000&yields=1&ring=2&variant=reversed-dance&syscall_ns=1000000&hog_ns=50000000&rounds=20&net_ns=100000&locked=1&seed=1';
const DANCE_STEPS = 88;
const DANCE_PICKS = '0:t0,1:t0,2:t0,3:t0,4:t0,5:t0,6:t0,7:t0,8:t0,9:t0,10:t0,11:t0,12:t0,13:t0,14:t0,15:t0,16:t0,17:t0,18:t0,19:t0,20:t0,21:t0,22:t0,23:t0,24:t0,25:t0,26:t0,27:t0,28:t0,29:t0,30:t1,31:t1,32:t1,33:t1,34:t1,35:t1,36:t1,37:t1,38:t1,39:t1,40:t1,41:t1,42:t1,43:t1,44:t1,45:t1,46:t1,47:t1,48:t1,49:t1,50:t1,51:t1,52:t1,53:t1,54:t1,55:t1,56:t0,57:t0,58:t0,59:t0,60:t1,61:t1,62:t1,63:t1,64:t1,65:t1,66:t1,67:t1,68:t1,69:t1,70:t1,71:t1,72:t1,73:t1,74:t1,75:t0,76:t0,77:t0,78:t0,79:t0,80:t0,81:t0,82:t0,83:t1,84:t1,85:t1,86:t1,87:t1';

const invariant = (page) => page.locator(sel('invariant-status', 'main')).getAttribute('data-invariant');

test('the checker\'s reversed-dance link opens the lesson\'s playground at its lost wakeup; the page\'s keys step it back, M1\'s button breaks it again', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${LESSON}?${DANCE_QUERY}&follow=picks&step=${DANCE_STEPS}&picks=${DANCE_PICKS}`);
  await waitForSim(page);
  await waitForSteps(page, 'main', DANCE_STEPS);
  assert.equal(await page.locator('[data-testid="sim-main"] [data-testid="sim-gmp-playground"]').count(), 1, 'the playground is gmp-playground');
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0, 'every value of the link is used');
  assert.equal(await num(page, 'counter-steps', 'main'), DANCE_STEPS);
  assert.equal(await invariant(page), 'lost-wakeup');

  // a step short of it every invariant holds (ArrowLeft: the page's keys drive the playground)
  await page.evaluate(() => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  });
  const progress = page.locator(sel('replay-progress', 'main'));
  assert.match(await progress.textContent(), new RegExp(`replayed: step ${DANCE_STEPS} of ${DANCE_STEPS}, and lost-wakeup is broken`));
  await page.keyboard.press('ArrowLeft');
  await waitForSteps(page, 'main', DANCE_STEPS - 1);
  assert.equal(await invariant(page), '');
  // the link follows the counterexample (follow=picks): ArrowRight retraces its last step
  await page.keyboard.press('ArrowRight');
  await waitForSteps(page, 'main', DANCE_STEPS);
  assert.equal(await invariant(page), 'lost-wakeup');
  assert.ok(await page.locator(sel('step-forward', 'main')).isDisabled(), 'the counterexample ends here');
  // the checker's last pick, by hand: M1 drops its spinning mark
  await page.keyboard.press('ArrowLeft');
  await waitForSteps(page, 'main', DANCE_STEPS - 1);
  await page.locator(sel('step-thread-1', 'main')).click();
  await waitForSteps(page, 'main', DANCE_STEPS);
  assert.equal(await invariant(page), 'lost-wakeup');
  // the address follows the playground: a copied link reopens it there
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, new RegExp(`[?&]step=${DANCE_STEPS}(&|$)`), hash);
  assert.match(hash, /variant=reversed-dance/, hash);
  assert.match(hash, new RegExp(`picks=[^&]*\\b${DANCE_STEPS - 1}:t1(,|&|$)`), hash);

  // a bad value: named in the page with the allowed values, and the lesson's own value runs
  await page.goto(`${LESSON}?gomaxprocs=99`);
  await page.reload();
  const error = page.locator('[data-testid="url-error"]');
  await error.waitFor();
  assert.match(await error.textContent(), /gomaxprocs/);
  assert.match(await error.textContent(), /1-16|allowed/);
  await waitForSim(page);
  assert.equal(await page.locator(sel('gmp-p-1', 'main')).count(), 1, 'two Ps, the block\'s');
  assert.equal(await page.locator(sel('gmp-p-2', 'main')).count(), 0);
  assertNoPageErrors();
});

test('axe: no serious or critical violation on the go-scheduler lesson with its lazy widgets', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await waitForSim(page, 'gmp-ring');
  for (const id of ['gmp-single', 'gmp-objects', 'gmp-ring', 'gmp-steal', 'gmp-spin', 'gmp-syscall', 'gmp-syscall-noretake', 'gmp-hog', 'gmp-locked', 'gmp-cmp-1012', 'gmp-cmp-steal-one', 'gmp-cmp-herd', 'gmp-goyield']) {
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, 1);
  }
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, {
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
  });
  assert.deepEqual(found, [], 'axe violations');
  assertNoPageErrors();
});

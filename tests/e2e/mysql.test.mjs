// Browser tests for MySQL's connection handling on the site (mechanism=mysql, lessons
// mysql-thread-per-connection and mysql-thread-pool), against docs/site-contract.md ("MySQL's
// connection handling"): its widgets live in the lazily loaded bundle only (web/src/bin/lazy.rs),
// so the lesson page shows `<Lazy what="sim"|"compare"|"check">` for each mysql block and the
// bundle draws the widget. They depend on the lessons' block ids (IDS, COMPARES, POOL_IDS,
// POOL_COMPARES, the check blocks) and on two scenarios whose numbers
// web/src/mechanisms/mysql/snapshot.rs pins: `mysql-cache` (4 clients, 16 queries, a reconnection
// after every 2, a cache of 2: `the_cache_scenario_of_the_browser_test`) and `mysql-tp-listener`
// (one group, 8 connections, 40 queries: `the_listener_scenario_of_the_browser_test`). The
// comparisons' figures are the lessons' (core's `lesson_figures` holds them), and the thread
// cache's check is web/src/mechanisms/mysql/blocks.rs's (`CACHE_SCHEDULE`: 152,441 states, 87
// steps).
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/mysql.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { BASE, useBrowser, openPage as openBrowserPage, sel, waitForSim, waitForSteps } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const LESSON = `${BASE}/#/lesson/mysql-thread-per-connection`;
const TEST_TIMEOUT = 120_000;
const POOL_LESSON = `${BASE}/#/lesson/mysql-thread-pool`;
const IDS = ['mysql-nocache', 'mysql-cache', 'mysql-pool', 'mysql-playground'];
const COMPARES = ['mysql-cmp-cache', 'mysql-cmp-mode', 'mysql-break'];
const POOL_IDS = ['mysql-tp-listener', 'mysql-tp-playground'];
const POOL_COMPARES = ['mysql-tp-fifo', 'mysql-tp-wait', 'mysql-tp-stall', 'mysql-tp-tickets', 'mysql-tp-hurts'];
// the thread cache's check in the browser (blocks.rs `CACHE_SCHEDULE`): t0 the clients, t1 and t2
// the two connections' threads
const CACHE_CHECK = {
  id: 'mysql-check-cache',
  states: 152441,
  schedule: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
};
// the pool's check (core's check_preset, as `herdlab check mysql --variant no-stall-timer`)
const POOL_CHECK = { id: 'mysql-tp-check', states: 26745 };
// a search of ~150 k states in a worker (23 s natively in release on a loaded 2-vCPU VM)
const CHECK_WAIT = 300_000;
// mysql-tp-listener (snapshot.rs pins the same): g0t0 becomes the listener at step 27 and turns
// into a worker for the first query at step 42, with nothing queued
const LISTEN = { step: 27, name: 'g0t0', pick: 42 };
// console errors other than a missing favicon fail these tests
const QUIET = /favicon|status of 404/;
// mysql-cache at its first hand-off (snapshot.rs pins the same): every client connects at the start
// (4 threads), and the first reconnection is handed to the one parked thread, promised
// (wake_pthread 1) before the thread wakes
const FIRST_HIT = { step: 128, created: 4, connects: 5, blocked: '1', wake: '1', alive: '4' };

useBrowser();

const openPage = (t, options) => openBrowserPage(t, { quietConsole: QUIET, ...options });

/** Console errors of `page` from now on (a missing favicon aside). */
function consoleErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !QUIET.test(msg.text())) errors.push(msg.text());
  });
  return errors;
}

/** Group `g`'s words of the pool widget `sim`. */
async function group(page, sim, g = 0) {
  return page.evaluate(([sim, g]) => {
    const d = document.querySelector(`[data-testid="sim-${sim}"] [data-testid="mysql-group-${g}"]`).dataset;
    return { listener: d.listener, threads: d.threads, active: d.active, queue: d.queue, high: d.high };
  }, [sim, g]);
}

async function num(page, testid, sim) {
  const s = (await page.locator(sel(testid, sim)).first().textContent()).trim();
  const n = Number(s);
  assert.ok(Number.isFinite(n), `${testid} should be a plain number, got ${JSON.stringify(s)}`);
  return n;
}

/** The thread cache's words and each connection's thread. */
async function cache(page, sim) {
  return page.evaluate((sim) => {
    const root = document.querySelector(`[data-testid="sim-${sim}"]`);
    const c = root.querySelector('[data-testid="mysql-cache"]').dataset;
    const conns = [...root.querySelectorAll('[data-testid^="mysql-conn-"]')].map((x) => x.dataset.thread);
    return { blocked: c.blocked, wake: c.wake, alive: c.alive, conns };
  }, sim);
}

/** Waits until comparison `cmp` is drawn (both halves with their step counters). */
async function waitForCompare(page, cmp) {
  await page.waitForSelector(`[data-testid="sim-${cmp}"][data-widget="compare"]`);
  for (const side of ['left', 'right']) await page.waitForSelector(sel('counter-steps', `${cmp}-${side}`));
}

/** The value of a comparison's table cell (`left-<key>`, `right-<key>`, `diff-<key>`). */
async function cell(page, cmp, testid) {
  return (await page.locator(sel(testid, cmp)).textContent()).trim();
}

async function runToEnd(page, sim) {
  await page.locator(sel('run-end', sim)).click();
  await page.waitForFunction((sim) => document.querySelector(`[data-testid="sim-${sim}"] [data-testid="run-end"]`)?.disabled, sim);
}

test('mysql blocks are drawn by the lazy bundle: the thread cache parks threads and hands them connections, with core\'s counts', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const wasm = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/lazy_bg.wasm')) wasm.push(r.url());
  });
  await page.goto(LESSON);
  for (const id of IDS) await waitForSim(page, id);
  for (const id of COMPARES) await waitForCompare(page, id);
  assert.equal(wasm.length, 1, 'the lazy bundle is loaded once for all the lesson\'s mysql blocks');
  assert.equal(await page.locator('[data-testid="lazy"][data-what="sim"]').count(), IDS.length);
  assert.equal(await page.locator('[data-testid="lazy"][data-what="compare"]').count(), COMPARES.length);
  assert.equal(await page.locator('[data-testid="lazy"][data-what="check"]').count(), 1);
  assert.equal(await page.locator('[data-testid="lazy-error"], [data-testid="lazy-widget-error"]').count(), 0);

  const c = 'mysql-cache';
  assert.equal(await page.locator(`[data-testid="sim-${c}"]`).getAttribute('data-mechanism'), 'mysql');
  // the clients, then 4 connections + a cache of 2 + 1 closing thread slots
  assert.equal(await page.locator(`[data-testid="sim-${c}"] [data-testid^="lane-"]`).count(), 8);
  assert.equal(await num(page, 'counter-steps', c), 0);
  assert.deepEqual(await cache(page, c), { blocked: '0', wake: '0', alive: '0', conns: ['none', 'none', 'none', 'none'] });

  // step until the first connection is handed to a parked thread
  let steps = 0;
  while ((await num(page, 'counter-cache_hits', c)) === 0) {
    await page.locator(sel('step-forward', c)).click();
    await waitForSteps(page, c, ++steps);
    assert.ok(steps <= FIRST_HIT.step, `the first hand-off by step ${FIRST_HIT.step}`);
  }
  assert.equal(steps, FIRST_HIT.step);
  assert.equal(await num(page, 'counter-threads_created', c), FIRST_HIT.created);
  assert.equal(await num(page, 'counter-connects', c), FIRST_HIT.connects);
  const at = await cache(page, c);
  assert.deepEqual([at.blocked, at.wake, at.alive], [FIRST_HIT.blocked, FIRST_HIT.wake, FIRST_HIT.alive]);

  await runToEnd(page, c);
  assert.equal(await num(page, 'counter-queries_done', c), 16);
  assert.equal(await num(page, 'counter-connects', c), 9);
  assert.equal(await num(page, 'counter-threads_created', c), 4);
  assert.equal(await num(page, 'counter-cache_hits', c), 5);
  assert.equal((await page.locator(sel('invariant-status', c)).textContent()).trim(), 'all invariants hold');

  // no cache: a thread per connection
  await runToEnd(page, 'mysql-nocache');
  assert.equal(await num(page, 'counter-threads_created', 'mysql-nocache'), 9);
  assert.equal(await num(page, 'counter-cache_hits', 'mysql-nocache'), 0);

  // the pool: two groups, one worker each for the 16 queries
  const p = 'mysql-pool';
  assert.equal(await page.locator(sel('mysql-group-0', p)).count(), 1);
  assert.equal(await page.locator(sel('mysql-group-1', p)).count(), 1);
  assert.equal(await page.locator(sel('mysql-cache', p)).count(), 0);
  // the clients, the timer, 3 worker slots per group
  assert.equal(await page.locator(`[data-testid="sim-${p}"] [data-testid^="lane-"]`).count(), 8);
  await runToEnd(page, p);
  assert.equal(await num(page, 'counter-queries_done', p), 16);
  assert.equal(await num(page, 'counter-threads_created', p), 2);
  assert.equal((await page.locator(sel('invariant-status', p)).textContent()).trim(), 'all invariants hold');
  assertNoPageErrors();
});

test('mysql-thread-per-connection: the comparisons step both sides together and end with core\'s counts, and the broken hand-off breaks cache-count on its side only', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  await page.goto(LESSON);
  for (const id of COMPARES) await waitForCompare(page, id);
  assert.equal(await page.locator('[data-testid="block-error"]').count(), 0, 'every block parses');

  // no cache against a cache of 2, same 6 clients and seed: 32 connections
  const k = 'mysql-cmp-cache';
  assert.equal(await page.locator(`[data-testid="sim-${k}"]`).getAttribute('data-mechanism'), 'mysql');
  assert.match(await page.locator(`[data-testid="sim-${k}-left"] .half-title`).textContent(), /left: thread_cache_size 0/);
  assert.match(await page.locator(`[data-testid="sim-${k}-right"] .half-title`).textContent(), /right: thread_cache_size 2/);
  // one click steps both sides
  for (let i = 1; i <= 3; i++) {
    await page.locator(sel('step-forward', k)).click();
    await waitForSteps(page, `${k}-left`, i);
    await waitForSteps(page, `${k}-right`, i);
  }
  await runToEnd(page, k);
  assert.equal(await cell(page, k, 'left-connects'), '32');
  assert.equal(await cell(page, k, 'right-connects'), '32');
  assert.equal(await cell(page, k, 'diff-connects'), '0');
  assert.equal(await cell(page, k, 'left-threads_created'), '32');
  assert.equal(await cell(page, k, 'right-threads_created'), '12');
  assert.equal(await cell(page, k, 'diff-threads_created'), '-20');
  assert.equal(await cell(page, k, 'right-cache_hits'), '20');
  assert.equal(await page.locator(sel('diff-threads_created', k)).getAttribute('class'), 'less');
  assert.equal(await num(page, 'counter-threads_created', `${k}-right`), 12, 'the half shows its own counters');

  // one thread per connection against the pool: both modes' counters in one table
  const m = 'mysql-cmp-mode';
  await runToEnd(page, m);
  assert.equal(await cell(page, m, 'left-queries_done'), '200');
  assert.equal(await cell(page, m, 'right-queries_done'), '200');
  assert.equal(await cell(page, m, 'left-threads_created'), '16', 'a thread per connection');
  const pooled = Number(await cell(page, m, 'right-threads_created'));
  assert.ok(pooled >= 2 && pooled < 16, `the pool's 2 groups start a few threads: ${pooled}`);
  assert.equal(await cell(page, m, 'diff-threads_created'), String(pooled - 16));
  assert.equal(await cell(page, m, 'left-timer_ticks'), '0', 'no timer one thread per connection');
  assert.ok(Number(await cell(page, m, 'right-timer_ticks')) >= 0);
  assert.equal(await cell(page, m, 'right-cache_hits'), '0');

  // the broken hand-off: step both until an invariant breaks; it is cache-count, on the right,
  // with two promises made to one parked thread, and the real test on the left holds
  const b = 'mysql-break';
  const broken = (side) => page.locator(sel('invariant-status', `${b}-${side}`)).getAttribute('data-invariant');
  let steps = 0;
  while ((await broken('right')) === '') {
    await page.locator(sel('step-forward', b)).click();
    await waitForSteps(page, `${b}-right`, ++steps);
    assert.ok(steps <= 300, 'cache-count breaks within 300 steps');
  }
  assert.equal(await broken('right'), 'cache-count');
  assert.equal(await broken('left'), '');
  assert.equal((await page.locator(sel('mysql-wake', `${b}-right`)).textContent()).trim(), '2');
  assert.equal((await page.locator(sel('mysql-blocked', `${b}-right`)).textContent()).trim(), '1');
  assert.match(await page.locator(sel('invariant-status', `${b}-right`)).textContent(), /cache-count is broken: wake_pthread 2 exceeds blocked_pthread_count 1/);
  // to the end: the real test answers all 8 queries, the broken one 5 (the lesson's figures)
  await runToEnd(page, b);
  assert.equal(await cell(page, b, 'left-queries_done'), '8');
  assert.equal(await cell(page, b, 'right-queries_done'), '7');
  assert.equal(await cell(page, b, 'diff-queries_done'), '-1');
  assert.equal(await cell(page, b, 'left-threads_created'), '4');
  assert.equal(await cell(page, b, 'left-cache_hits'), '4');
  assert.deepEqual(errors, [], 'console errors');
  assertNoPageErrors();
});

test('mysql-thread-per-connection: the check block finds the broken hand-off in the worker, its replay steps to cache-count, axe clean', { timeout: CHECK_WAIT + TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  await page.goto(LESSON);
  const block = page.locator(`[data-testid="check-${CACHE_CHECK.id}"]`);
  await block.locator('[data-testid="find-bug"]').waitFor();
  await block.scrollIntoViewIfNeeded();
  assert.equal(await block.locator('[data-testid="block-error"]').count(), 0, 'the block parses');
  assert.match(await block.textContent(), /Invariants: one-listener, no-lost-event, active-count, thread-bound, idle-with-work, cache-count, one-connection, all-served/);
  const started = Date.now();
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  const wallMs = Date.now() - started;
  assert.equal(await block.locator('[data-testid="check-error"]').count(), 0);
  const verdict = block.locator('[data-testid="check-verdict"]');
  assert.equal(await verdict.getAttribute('data-invariant'), 'cache-count');
  assert.match(await verdict.textContent(), /wake_pthread 2 exceeds blocked_pthread_count 1/);
  assert.match(await verdict.textContent(), new RegExp(`shortest schedule: ${CACHE_CHECK.schedule.length} checker steps`));
  assert.equal(await block.locator('[data-testid="check-result"]').getAttribute('data-complete'), 'true');
  assert.equal(Number((await block.locator('[data-testid="check-states"]').textContent()).trim()), CACHE_CHECK.states);
  console.log(`check_mysql_cache_states: ${CACHE_CHECK.states}, ms: ${(await block.locator('[data-testid="check-ms"]').textContent()).trim()} (wall ${wallMs})`);
  const picks = CACHE_CHECK.schedule.map((a, i) => `${i}:t${a}`).join(',');
  assert.equal((await block.locator('[data-testid="check-schedule"]').textContent()).trim(), picks);

  // the replay: the mysql widget at step 0, stepping to the broken invariant at the last step
  const r = `${CACHE_CHECK.id}-replay`;
  await waitForSim(page, r);
  assert.equal(await num(page, 'counter-steps', r), 0, 'the replay opens at step 0');
  const progress = page.locator(sel('replay-progress', r));
  assert.equal(await progress.getAttribute('data-total'), String(CACHE_CHECK.schedule.length));
  const n = CACHE_CHECK.schedule.length;
  for (let i = 1; i <= n; i++) {
    await page.locator(sel('step-forward', r)).click();
    await waitForSteps(page, r, i);
    if (i < n) {
      assert.equal(await page.locator(sel('invariant-status', r)).getAttribute('data-invariant'), '', `nothing broken at step ${i}`);
    }
  }
  assert.equal(await page.locator(sel('invariant-status', r)).getAttribute('data-invariant'), 'cache-count');
  assert.deepEqual((await cache(page, r)).wake, '2');
  assert.match(await progress.textContent(), new RegExp(`replayed: step ${n} of ${n}, and cache-count is broken`));

  // "open it in the playground": the lesson's playground (mysql-playground, a block of the
  // lazily loaded bundle) at the counterexample's last step, with the same picks
  const href = await block.locator('[data-testid="check-link"]').getAttribute('href');
  assert.match(href, new RegExp(`^#/lesson/mysql-thread-per-connection\\?.*&follow=picks&step=${n}&picks=${picks}$`));
  const other = await openPage(t);
  await other.page.goto(`${BASE}/${href}`);
  await waitForSim(other.page);
  await waitForSteps(other.page, 'main', n);
  assert.equal(await other.page.locator('[data-testid="sim-main"] [data-testid="sim-mysql-playground"]').count(), 1);
  assert.equal(await other.page.locator('[data-testid="url-error"]').count(), 0, 'every value of the link is used');
  assert.equal(await other.page.locator(sel('invariant-status', 'main')).getAttribute('data-invariant'), 'cache-count');
  other.assertNoPageErrors();

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
  assert.deepEqual(errors, [], 'console errors');
  assertNoPageErrors();
});

test('mysql-thread-pool: the listener serves the first event itself, the comparisons differ as core says, and the check holds', { timeout: CHECK_WAIT + TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  const wasm = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/lazy_bg.wasm')) wasm.push(r.url());
  });
  await page.goto(POOL_LESSON);
  for (const id of POOL_IDS) await waitForSim(page, id);
  for (const id of POOL_COMPARES) await waitForCompare(page, id);
  assert.equal(wasm.length, 1, 'the lazy bundle is loaded once for all the lesson\'s blocks');
  assert.equal(await page.locator('[data-testid="lazy"][data-what="sim"]').count(), POOL_IDS.length);
  assert.equal(await page.locator('[data-testid="lazy"][data-what="compare"]').count(), POOL_COMPARES.length);
  assert.equal(await page.locator('[data-testid="lazy-error"], [data-testid="lazy-widget-error"], [data-testid="block-error"]').count(), 0);
  // a predict block before every reveal: each waits for the learner's pick
  assert.equal(await page.locator('[data-testid="predict-waiting"]').count(), 7);

  const l = 'mysql-tp-listener';
  assert.equal(await page.locator(`[data-testid="sim-${l}"]`).getAttribute('data-mechanism'), 'mysql');
  // the clients, the timer, 3 worker slots in the one group
  assert.equal(await page.locator(`[data-testid="sim-${l}"] [data-testid^="lane-"]`).count(), 5);
  assert.deepEqual(await group(page, l), { listener: 'none', threads: '0', active: '0', queue: '0', high: '0' });
  // step until the group has a listener: its first thread, at the step core says
  let steps = 0;
  while ((await group(page, l)).listener === 'none') {
    await page.locator(sel('step-forward', l)).click();
    await waitForSteps(page, l, ++steps);
    assert.ok(steps <= LISTEN.step, `a listener by step ${LISTEN.step}`);
  }
  assert.equal(steps, LISTEN.step);
  assert.equal((await group(page, l)).listener, LISTEN.name);
  assert.equal(await page.locator(sel('mysql-listener-0', l)).textContent(), LISTEN.name);
  // on until it stops listening: it took the first event itself, nothing is queued, one thread
  while ((await group(page, l)).listener !== 'none') {
    await page.locator(sel('step-forward', l)).click();
    await waitForSteps(page, l, ++steps);
    assert.ok(steps <= LISTEN.pick, `the first pick by step ${LISTEN.pick}`);
  }
  assert.equal(steps, LISTEN.pick);
  assert.deepEqual(await group(page, l), { listener: 'none', threads: '1', active: '1', queue: '0', high: '0' });

  // the stall comparison (few clock events): the timer adds a thread, without it the group keeps one
  const st = 'mysql-tp-stall';
  assert.match(await page.locator(`[data-testid="sim-${st}-right"] .half-title`).textContent(), /right: no-stall-timer/);
  await runToEnd(page, st);
  assert.equal(await cell(page, st, 'left-queries_done'), '20');
  assert.equal(await cell(page, st, 'right-queries_done'), '20');
  assert.equal(await cell(page, st, 'left-threads_created'), '2');
  assert.equal(await cell(page, st, 'right-threads_created'), '1');
  assert.equal(await cell(page, st, 'diff-threads_created'), '-1');
  for (const side of ['left', 'right']) {
    assert.equal((await page.locator(sel('invariant-status', `${st}-${side}`)).textContent()).trim(), 'all invariants hold');
  }
  // thd_wait_begin: the callback lets the groups add threads while one waits for the lock
  const w = 'mysql-tp-wait';
  await runToEnd(page, w);
  assert.equal(await cell(page, w, 'left-threads_created'), '8');
  assert.equal(await cell(page, w, 'right-threads_created'), '2');
  assert.equal(await cell(page, w, 'diff-threads_created'), '-6');

  // where a pool hurts: one long query holds its group, so the short queries queued behind it wait
  const h = 'mysql-tp-hurts';
  await runToEnd(page, h);
  assert.equal(await cell(page, h, 'left-queries_done'), '400');
  assert.equal(await cell(page, h, 'right-queries_done'), '400');
  const [lp95, rp95] = [Number(await cell(page, h, 'left-p95_ns')), Number(await cell(page, h, 'right-p95_ns'))];
  assert.ok(rp95 > 100 * lp95, `the pool's p95 (${rp95} ns) is far above one thread per connection's (${lp95} ns)`);
  assert.equal(await page.locator(sel('diff-p95_ns', h)).getAttribute('class'), 'more');

  // the pool's check in the worker: nothing broken in every reachable state
  const block = page.locator(`[data-testid="check-${POOL_CHECK.id}"]`);
  await block.scrollIntoViewIfNeeded();
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  assert.equal(await block.locator('[data-testid="check-error"]').count(), 0);
  assert.equal(await block.locator('[data-testid="check-verdict"]').getAttribute('data-invariant'), '');
  assert.equal(await block.locator('[data-testid="check-result"]').getAttribute('data-complete'), 'true');
  assert.equal(Number((await block.locator('[data-testid="check-states"]').textContent()).trim()), POOL_CHECK.states);
  assert.deepEqual(errors, [], 'console errors');
  assertNoPageErrors();
});

test('axe: no serious or critical violation on the mysql-thread-pool lesson with its lazy widgets', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(POOL_LESSON);
  for (const id of POOL_IDS) {
    await waitForSim(page, id);
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, 1);
  }
  for (const id of POOL_COMPARES) {
    await waitForCompare(page, id);
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, `${id}-right`, 1);
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

test('axe: no serious or critical violation on the mysql lesson with its lazy widgets', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  for (const id of IDS) {
    await waitForSim(page, id);
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, id, 1);
  }
  for (const id of COMPARES) {
    await waitForCompare(page, id);
    await page.locator(sel('step-forward', id)).click();
    await waitForSteps(page, `${id}-right`, 1);
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

test('#/check takes mysql: the lazy bundle checks the thread cache\'s preset, finds the broken hand-off and opens its replay; gmp and an unknown mechanism get the allowed list', { timeout: CHECK_WAIT + TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  // the same preset as the lesson's check block (blocks.rs `mysql_check_preset`): same search
  await page.goto(`${BASE}/#/check?mechanism=mysql&mode=per-connection&variant=cache-any-blocked`);
  assert.equal(await page.locator('[data-testid="lazy"][data-what="check-page"]').count(), 1);
  const block = page.locator('[data-testid="check-page"]');
  await block.locator('[data-testid="find-bug"]').waitFor();
  assert.equal(await block.locator('[data-testid="block-error"]').count(), 0, 'the query parses');
  assert.equal(await page.locator('[data-testid="check-page-error"]').count(), 0);
  // one footer, the lazy bundle's: the lesson of the mechanism checked
  const lesson = page.locator('[data-testid="check-page-lesson"]');
  assert.equal(await lesson.count(), 1);
  assert.equal(await lesson.getAttribute('href'), '#/lesson/mysql-thread-per-connection');
  assert.match(await block.textContent(), /Invariants: one-listener, no-lost-event, active-count, thread-bound, idle-with-work, cache-count, one-connection, all-served/);
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  assert.equal(await block.locator('[data-testid="check-error"]').count(), 0);
  const verdict = block.locator('[data-testid="check-verdict"]');
  assert.equal(await verdict.getAttribute('data-invariant'), 'cache-count');
  assert.match(await verdict.textContent(), new RegExp(`shortest schedule: ${CACHE_CHECK.schedule.length} checker steps`));
  assert.equal(Number((await block.locator('[data-testid="check-states"]').textContent()).trim()), CACHE_CHECK.states);
  console.log(`check_page_mysql_cache_ms: ${(await block.locator('[data-testid="check-ms"]').textContent()).trim()}`);
  const picks = CACHE_CHECK.schedule.map((a, i) => `${i}:t${a}`).join(',');
  assert.equal((await block.locator('[data-testid="check-schedule"]').textContent()).trim(), picks);
  // its replay opens at step 0 and runs to the broken invariant at the counterexample's end
  const r = 'page-replay';
  await waitForSim(page, r);
  assert.equal(await num(page, 'counter-steps', r), 0, 'the replay opens at step 0');
  await runToEnd(page, r);
  assert.equal(await num(page, 'counter-steps', r), CACHE_CHECK.schedule.length);
  assert.equal(await page.locator(sel('invariant-status', r)).getAttribute('data-invariant'), 'cache-count');
  assert.equal((await cache(page, r)).wake, '2');

  // a mechanism the browser's checker lacks, and one that does not exist: the message, no check
  for (const [m, why] of [['gmp', 'has no checker in this browser'], ['nope', 'is not a mechanism']]) {
    await page.goto(`${BASE}/#/check?mechanism=${m}&id=x`);
    const e = page.locator('[data-testid="check-page-error"]');
    await e.waitFor();
    assert.equal((await e.textContent()).trim(), `mechanism: '${m}' ${why}; allowed: locks, herd, pool, mysql`);
    assert.equal(await page.locator('[data-testid^="check-"] [data-testid="find-bug"]').count(), 0, `${m}: no check runs`);
    assert.equal(await page.locator('h1').textContent(), 'The model checker, in this browser');
  }
  assert.deepEqual(errors, [], 'console errors');
  assertNoPageErrors();
});

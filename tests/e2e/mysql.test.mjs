// Browser tests for MySQL's connection handling on the site (mechanism=mysql, lessons
// mysql-thread-per-connection and mysql-thread-pool), against docs/site-contract.md ("MySQL's
// connection handling"): its widgets live in the lazily loaded bundle only (web/src/bin/lazy.rs),
// so the lesson page shows `<Lazy what="sim">` for each mysql block and the bundle draws the
// widget. They depend on the lessons' block ids (IDS, POOL_IDS) and on two scenarios whose numbers
// web/src/mechanisms/mysql/snapshot.rs pins: `mysql-cache` (4 clients, 16 queries, a reconnection
// after every 2, a cache of 2: `the_cache_scenario_of_the_browser_test`) and `mysql-tp-listener`
// (one group, 8 connections, 40 queries: `the_listener_scenario_of_the_browser_test`).
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
const IDS = ['mysql-nocache', 'mysql-cache', 'mysql-cmp-cache0', 'mysql-cmp-cache2', 'mysql-cmp-perconn', 'mysql-cmp-pool', 'mysql-break', 'mysql-pool'];
const POOL_IDS = ['mysql-tp-listener', 'mysql-tp-fifo', 'mysql-tp-wait', 'mysql-tp-nowait', 'mysql-tp-stall', 'mysql-tp-nostall', 'mysql-tp-tickets', 'mysql-tp-noprio'];
// mysql-tp-listener (snapshot.rs pins the same): g0t0 becomes the listener at step 27 and turns
// into a worker for the first query at step 42, with nothing queued
const LISTEN = { step: 27, name: 'g0t0', pick: 42 };
// console errors other than a missing favicon fail these tests
const QUIET = /favicon|status of 404/;
// mysql-cache at its first hand-off (snapshot.rs pins the same): the third connection is handed to
// the one parked thread, promised (wake_pthread 1) before the thread wakes
const FIRST_HIT = { step: 91, created: 2, connects: 3, blocked: '1', wake: '1', alive: '2' };

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
  assert.equal(wasm.length, 1, 'the lazy bundle is loaded once for all the lesson\'s mysql blocks');
  assert.equal(await page.locator('[data-testid="lazy"][data-what="sim"]').count(), IDS.length);
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

test('mysql-thread-per-connection: the compare pairs end with core\'s counts, and the broken hand-off breaks cache-count', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  await page.goto(LESSON);
  for (const id of IDS) await waitForSim(page, id);
  // no cache against a cache of 2, same 6 clients and seed: 32 connections
  await runToEnd(page, 'mysql-cmp-cache0');
  await runToEnd(page, 'mysql-cmp-cache2');
  assert.equal(await num(page, 'counter-connects', 'mysql-cmp-cache0'), 32);
  assert.equal(await num(page, 'counter-threads_created', 'mysql-cmp-cache0'), 32);
  assert.equal(await num(page, 'counter-connects', 'mysql-cmp-cache2'), 32);
  assert.equal(await num(page, 'counter-threads_created', 'mysql-cmp-cache2'), 12);
  assert.equal(await num(page, 'counter-cache_hits', 'mysql-cmp-cache2'), 20);
  // the broken hand-off: step until an invariant breaks; it is cache-count, with two promises
  // made to one parked thread
  const b = 'mysql-break';
  let steps = 0;
  while ((await page.locator(sel('invariant-status', b)).getAttribute('data-invariant')) === '') {
    await page.locator(sel('step-forward', b)).click();
    await waitForSteps(page, b, ++steps);
    assert.ok(steps <= 300, 'cache-count breaks within 300 steps');
  }
  assert.equal(await page.locator(sel('invariant-status', b)).getAttribute('data-invariant'), 'cache-count');
  const at = await cache(page, b);
  assert.deepEqual([at.wake, at.blocked], ['2', '1']);
  assert.match(await page.locator(sel('invariant-status', b)).textContent(), /cache-count is broken: wake_pthread 2 exceeds blocked_pthread_count 1/);
  assert.deepEqual(errors, [], 'console errors');
  assertNoPageErrors();
});

test('mysql-thread-pool: the listener serves the first event itself, and the broken variants differ from the real code as core says', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const errors = consoleErrors(page);
  const wasm = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/lazy_bg.wasm')) wasm.push(r.url());
  });
  await page.goto(POOL_LESSON);
  for (const id of POOL_IDS) await waitForSim(page, id);
  assert.equal(wasm.length, 1, 'the lazy bundle is loaded once for all the lesson\'s blocks');
  assert.equal(await page.locator('[data-testid="lazy"][data-what="sim"]').count(), POOL_IDS.length);
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

  // the stall pair (few clock events): the timer adds a thread, without it the group keeps one
  await runToEnd(page, 'mysql-tp-stall');
  await runToEnd(page, 'mysql-tp-nostall');
  assert.equal(await num(page, 'counter-queries_done', 'mysql-tp-stall'), 20);
  assert.equal(await num(page, 'counter-threads_created', 'mysql-tp-stall'), 2);
  assert.equal(await num(page, 'counter-queries_done', 'mysql-tp-nostall'), 20);
  assert.equal(await num(page, 'counter-threads_created', 'mysql-tp-nostall'), 1);
  for (const id of ['mysql-tp-stall', 'mysql-tp-nostall']) {
    assert.equal((await page.locator(sel('invariant-status', id)).textContent()).trim(), 'all invariants hold');
  }
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

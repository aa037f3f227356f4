// Browser tests for the thread-pool widget (mechanism=pool, lesson nginx-thread-pool), against
// docs/site-contract.md ("Thread pool"). They depend only on the lesson having a pool playground
// (a `herdlab-sim` block with mechanism=pool and main=true) and on the scenario given in the
// address, never on the lesson's prose or on the values inside its blocks.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/
//
// Every test gets its own browser context, with prefers-reduced-motion so nothing autoplays.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage as openBrowserPage, sel, waitForSim, waitForSteps } from './support.mjs';

const LESSON = `${BASE}/#/lesson/nginx-thread-pool`;
// Two pool threads, three requests that all block, steady arrivals. The numbers below are the
// simulator's (web/src/mechanisms/pool/snapshot.rs, `the_browser_tests_scenario`, pins them).
const SMALL = 'mechanism=pool&threads=2&requests=3&blocking_pct=100&arrival=steady&rate=1000&cpus=2&seed=1';

const TEST_TIMEOUT = 90_000;

useBrowser();

const openPage = (t, options) => openBrowserPage(t, { quietConsole: /favicon|status of 404/, ...options });

async function text(page, testid, sim = 'main') {
  return (await page.locator(sel(testid, sim)).first().textContent()).trim();
}

async function num(page, testid, sim = 'main') {
  const s = await text(page, testid, sim);
  const n = Number(s);
  assert.ok(Number.isFinite(n), `${testid} should be a plain number, got ${JSON.stringify(s)}`);
  return n;
}

async function stepOnce(page, sim = 'main') {
  const before = await num(page, 'counter-steps', sim);
  await page.locator(sel('step-forward', sim)).click();
  await waitForSteps(page, sim, before + 1);
}

test('a pool playground steps: the first post links task 1, waiting goes negative, the run ends with every task done', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${LESSON}?${SMALL}&step=0`);
  await waitForSim(page);
  await page.waitForSelector('[data-testid="sim-main"] [data-mechanism="pool"]');
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0);
  // the event loop and two pool threads, each with its step button
  for (const id of ['lane-0', 'lane-1', 'lane-2', 'step-thread-0', 'step-thread-2', 'pool-queue', 'pool-done', 'pool-waiting', 'pool-notify']) {
    assert.equal(await page.locator(sel(id, 'main')).count(), 1, `${id} in the playground`);
  }
  assert.equal(await num(page, 'counter-tasks_posted'), 0);
  assert.equal(await num(page, 'pool-waiting'), 0);

  let guard = 0;
  while ((await num(page, 'counter-tasks_posted')) === 0) {
    await stepOnce(page);
    assert.ok(++guard <= 23, 'the first post comes by step 23');
  }
  assert.equal(await num(page, 'counter-steps'), 23);
  const queue = page.locator(sel('pool-queue', 'main'));
  assert.equal(await queue.getAttribute('data-tasks'), '1');
  assert.equal(await queue.getAttribute('data-last'), '&task 1.next');
  assert.equal(await num(page, 'pool-waiting'), -1, 'one task queued, two threads idle');
  assert.equal(await text(page, 'invariant-status'), 'all invariants hold');

  // one step by hand: the per-thread button of the event loop
  const before = await num(page, 'counter-steps');
  await page.locator(sel('step-thread-0', 'main')).click();
  await waitForSteps(page, 'main', before + 1);

  await page.locator(sel('run-end', 'main')).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sim-main"] [data-testid="run-end"]')?.disabled);
  assert.equal(await text(page, 'status'), 'Finished');
  assert.equal(await num(page, 'counter-requests'), 3);
  assert.equal(await num(page, 'counter-tasks_done'), 3);
  assert.equal(await num(page, 'counter-tasks_posted'), 5, 'three reads and two exit tasks');
  assert.equal(await queue.getAttribute('data-tasks'), '');
  assert.equal(await queue.getAttribute('data-last'), '&first');
  assert.equal(await text(page, 'invariant-status'), 'all invariants hold');
  assertNoPageErrors();
});

test('without the pool the event loop reads itself; broadcast wakes more threads than signal', { timeout: TEST_TIMEOUT }, async (t) => {
  const runs = {};
  for (const [name, extra] of [['nopool', '&offload=off'], ['signal', '&wake=signal'], ['broadcast', '&wake=broadcast']]) {
    const { page, assertNoPageErrors } = await openPage(t);
    await page.goto(`${LESSON}?${SMALL}${extra}&step=0`);
    await waitForSim(page);
    await page.locator(sel('run-end', 'main')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="sim-main"] [data-testid="run-end"]')?.disabled);
    runs[name] = {
      inline: await num(page, 'counter-inline_reads'),
      posted: await num(page, 'counter-tasks_posted'),
      wakeups: await num(page, 'counter-wakeups'),
      wasted: await num(page, 'counter-wasted_wakeups'),
    };
    assertNoPageErrors();
  }
  assert.deepEqual(runs.nopool, { inline: 3, posted: 2, wakeups: 2, wasted: 0 });
  assert.deepEqual(runs.signal, { inline: 0, posted: 5, wakeups: 5, wasted: 1 });
  assert.deepEqual(runs.broadcast, { inline: 0, posted: 5, wakeups: 6, wasted: 2 });
});

test('a bad pool key in the address shows url-error naming it and its allowed values', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${LESSON}?mechanism=pool&threads=99&wake=loud&step=0`);
  const error = page.locator('[data-testid="url-error"]');
  await error.waitFor();
  const msg = (await error.textContent()).trim();
  for (const w of ['threads', '1-64', 'wake', 'signal, broadcast']) {
    assert.ok(msg.includes(w), `url-error names ${w}: ${msg}`);
  }
  // the playground still runs, with its block's values for the bad keys
  await waitForSim(page);
  await stepOnce(page);
  assertNoPageErrors();
});

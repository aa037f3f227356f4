// Browser test: the timeline under a simulation widget (web/src/ui/timeline/, issue #14 §1).
// It renders (one lane per thread, the network and each CPU, a legend, the state at the cursor in
// words), a click on it seeks the stepper and the address, `]` `[` zoom and Shift+→ pans, axe
// finds no serious violation with it open, and scrubbing 64 workers × 100,000 steps prints its
// frame times. The timeline lives in the lazily loaded bundle (web/src/bin/lazy.rs): the main
// bundle's "Show the timeline" hands the widget, at its state, to that bundle
// (web/src/ui/shell/handoff.rs), which opens the same widget there with its timeline.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/timeline.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { BASE, useBrowser, openPage, waitForSim, waitForSteps, sel } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

useBrowser();

const steps = async (page) => Number((await page.locator(sel('counter-steps', 'main')).textContent()).trim());
const urlStep = (page) => Number(new URLSearchParams(page.url().split('?')[1]).get('step'));

/** Opens `query` in the herd lesson and its timeline (the lazy bundle loads on the click). */
async function openTimeline(page, query) {
  await page.goto(`${BASE}/#/lesson/thundering-herd?${query}`);
  await waitForSim(page);
  const toggle = page.locator(sel('timeline-toggle', 'main'));
  assert.equal(await toggle.count(), 1, 'the playground has a "Show the timeline" button');
  assert.equal(await toggle.textContent(), 'Show the timeline');
  await toggle.click();
  await page.waitForSelector(`[data-testid="lazy"][data-what="timeline"] ${sel('timeline', 'main')} canvas[data-draw-ms]`);
}

const view = async (page) =>
  (await page.locator(sel('timeline', 'main')).getAttribute('data-view')).split('-').map(Number);

test('the timeline renders its lanes, legend and words', { timeout: 90_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTimeline(page, 'workers=4&cpus=2&mode=wake-all&connections=5');
  const tl = page.locator(sel('timeline', 'main'));
  // 4 workers + the network + 2 CPUs (the herd's threads are its workers)
  const lanes = Number(await tl.getAttribute('data-lanes'));
  assert.ok(lanes >= 4 + 2, `lanes: ${lanes}`);
  assert.ok(Number(await tl.getAttribute('data-steps')) > 0);
  const wasted = Number(await tl.getAttribute('data-wasted'));
  const wakeups = Number(await tl.getAttribute('data-wakeups'));
  assert.ok(wakeups >= 5 && wasted > 0, `wake-all wastes wakeups: ${wakeups} wakeups, ${wasted} wasted`);
  const box = await tl.locator('[data-testid="timeline-canvas"]').boundingBox();
  assert.ok(box.height > 60 && box.width > 300, `canvas ${box.width}×${box.height}`);
  const legend = await page.locator(sel('timeline-legend', 'main')).textContent();
  for (const w of ['running', 'runnable', 'spinning', 'asleep', 'woken for nothing']) assert.ok(legend.includes(w), w);
  const detail = await page.locator(sel('timeline-detail', 'main')).textContent();
  assert.match(detail, /^thread 0 /);
  assertNoPageErrors();
});

test('the hand-off keeps the state: step, picks, parameters; focus on the timeline', { timeout: 90_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/thundering-herd?workers=3&cpus=2&mode=wake-all&connections=6`);
  await waitForSim(page);
  const fwd = page.locator(sel('step-forward', 'main'));
  for (let i = 0; i < 5; i++) await fwd.click();
  // a manual pick (the last thread that can step, by its lane's own button), then a default step
  await page.locator('[data-testid="sim-main"] .lane-step:enabled').last().click();
  await fwd.click();
  assert.match(page.url(), /&picks=/, 'the pick is in the address');
  const before = await steps(page);
  const urlBefore = page.url();
  const lanesBefore = await page.locator('[data-testid="sim-main"] .lanes').evaluate((e) => e.textContent);
  await page.locator(sel('timeline-toggle', 'main')).click();
  await page.waitForSelector(`[data-testid="lazy"][data-what="timeline"] ${sel('timeline', 'main')} canvas[data-draw-ms]`);
  assert.equal(await steps(page), before, 'the lazy bundle opens the widget at the same step');
  assert.equal(Number(await page.locator(sel('timeline', 'main')).getAttribute('data-cursor')), before);
  assert.equal(await page.locator('[data-testid="sim-main"] .lanes').evaluate((e) => e.textContent), lanesBefore, 'the same state (picks replayed)');
  assert.equal(page.url(), urlBefore, 'the address is unchanged by the hand-off');
  assert.equal(await page.locator(sel('timeline-toggle', 'main')).textContent(), 'Hide the timeline');
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  assert.equal(focused, 'timeline-canvas', 'the focus moves to the timeline');
  // the stepper there is the one cursor, and it keeps the address
  await page.locator(sel('step-forward', 'main')).click();
  assert.equal(await steps(page), before + 1);
  assert.equal(Number(await page.locator(sel('timeline', 'main')).getAttribute('data-cursor')), before + 1);
  assert.equal(urlStep(page), before + 1, 'the address keeps the step');
  assert.equal(await page.locator('[data-testid="sim-main"]').count(), 1, 'one playground on the page');
  assertNoPageErrors();
});

const lazyTimeline = (sim) => `[data-testid="lazy"][data-what="timeline"] ${sel('timeline', sim)} canvas[data-draw-ms]`;
const stepsOf = async (page, sim) => Number((await page.locator(sel('counter-steps', sim)).textContent()).trim());
const waitStepsOf = (page, sim, n) =>
  page.waitForFunction(
    ([sim, want]) => Number(document.querySelector(`[data-testid="sim-${sim}"] [data-testid="counter-steps"]`)?.textContent.trim()) === want,
    [sim, n],
  );
/** The focused element's test id, and whether it is inside widget `sim-<sim>`. */
const focusedIn = (page, sim) =>
  page.evaluate((sim) => {
    const el = document.activeElement;
    return { id: el?.getAttribute('data-testid'), inside: !!el?.closest(`[data-testid="sim-${sim}"]`) };
  }, sim);
/** Waits until the widget is back in the main bundle (no lazy timeline on the page). */
const waitHandedBack = (page) => page.waitForFunction(() => !document.querySelector('[data-testid="lazy"][data-what="timeline"]'));

test('"Hide the timeline" hands the playground back at its state: step, picks, parameters, the address, the focus', { timeout: 120_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTimeline(page, 'workers=3&cpus=2&mode=wake-all&connections=6');
  // in the lazy bundle: a parameter, steps, a pick by hand, a default step
  await page.locator(sel('input-workers', 'main')).fill('4');
  await page.locator(sel('input-workers', 'main')).dispatchEvent('change');
  await page.waitForFunction(() => /workers=4/.test(location.hash));
  const fwd = page.locator(sel('step-forward', 'main'));
  for (let i = 0; i < 4; i++) await fwd.click();
  await page.locator('[data-testid="sim-main"] .lane-step:enabled').last().click();
  await fwd.click();
  await waitForSteps(page, 'main', 6);
  assert.match(page.url(), /&picks=/, 'the pick is in the address');
  const urlThere = page.url();
  const lanesThere = await page.locator('[data-testid="sim-main"] .lanes').evaluate((e) => e.textContent);
  const hide = page.locator(sel('timeline-toggle', 'main'));
  assert.equal(await hide.textContent(), 'Hide the timeline');
  await hide.click();
  await waitHandedBack(page);
  await waitForSim(page);
  assert.equal(await steps(page), 6, 'handed back at the same step');
  assert.equal(await page.locator('[data-testid="sim-main"] .lanes').evaluate((e) => e.textContent), lanesThere, 'the same state (parameters and picks)');
  assert.equal(await page.locator(sel('input-workers', 'main')).inputValue(), '4', 'the parameter set there');
  assert.equal(page.url(), urlThere, 'the address keeps the step and the picks');
  const toggle = page.locator(sel('timeline-toggle', 'main'));
  assert.equal(await toggle.textContent(), 'Show the timeline');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.deepEqual(await focusedIn(page, 'main'), { id: 'timeline-toggle', inside: true }, 'the focus is on "Show the timeline"');
  // the main bundle's widget drives the address again, and hands over again
  await page.locator(sel('step-forward', 'main')).click();
  await waitForSteps(page, 'main', 7);
  assert.equal(urlStep(page), 7);
  await toggle.click();
  await page.waitForSelector(lazyTimeline('main'));
  assert.equal(await steps(page), 7);
  assert.equal(Number(await page.locator(sel('timeline', 'main')).getAttribute('data-cursor')), 7);
  assert.equal(await page.locator('[data-testid="sim-main"]').count(), 1, 'one playground on the page');
  assertNoPageErrors();
});

test('a counterexample replay is handed over as the same replay, its timeline the replay, and back', { timeout: 150_000 }, async (t) => {
  const REPLAY = 'find-lost-wakeup-replay';
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/thundering-herd`);
  await waitForSim(page);
  const block = page.locator('[data-testid="check-find-lost-wakeup"]');
  await block.scrollIntoViewIfNeeded();
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: 60_000 });
  await page.waitForSelector(sel('counter-steps', REPLAY));
  for (let i = 1; i <= 4; i++) {
    await page.locator(sel('step-forward', REPLAY)).click();
    await waitStepsOf(page, REPLAY, i);
  }
  const progress = () => page.locator(sel('replay-progress', REPLAY));
  assert.equal(await progress().textContent(), 'counterexample: step 4 of 9');
  const url = page.url();
  await page.locator(sel('timeline-toggle', REPLAY)).click();
  await page.waitForSelector(lazyTimeline(REPLAY));
  // the same replay, at the same step, with its progress
  assert.equal(await stepsOf(page, REPLAY), 4, 'the replay opens at the step it was at');
  assert.equal(await progress().textContent(), 'counterexample: step 4 of 9');
  assert.equal(await progress().getAttribute('data-total'), '9');
  assert.equal(await progress().getAttribute('data-on-script'), 'true');
  const tl = page.locator(sel('timeline', REPLAY));
  assert.equal(Number(await tl.getAttribute('data-cursor')), 4);
  assert.equal(Number(await tl.getAttribute('data-steps')), 9, 'the timeline is the counterexample, to its end');
  assert.equal(await page.locator(`[data-testid="sim-${REPLAY}"]`).count(), 1);
  assert.equal(await page.locator('[data-testid="check-schedule"]').count(), 1, 'the schedule is not shown twice');
  // the forced schedule: on to its end, where it stops with the lost wakeup
  for (let i = 5; i <= 9; i++) {
    await page.locator(sel('step-forward', REPLAY)).click();
    await waitStepsOf(page, REPLAY, i);
  }
  assert.match(await progress().textContent(), /replayed: step 9 of 9, and a wakeup is lost/);
  assert.ok(await page.locator(sel('step-forward', REPLAY)).isDisabled(), 'the replay stops at its end');
  await page.locator(sel('step-back', REPLAY)).click();
  await waitStepsOf(page, REPLAY, 8);
  assert.equal(page.url(), url, 'a replay is not the playground: the address is unchanged');
  // back to the main bundle: the same replay at step 8
  await page.locator(sel('timeline-toggle', REPLAY)).click();
  await waitHandedBack(page);
  await page.waitForSelector(sel('counter-steps', REPLAY));
  assert.equal(await stepsOf(page, REPLAY), 8, 'handed back at step 8');
  assert.equal(await progress().textContent(), 'counterexample: step 8 of 9');
  assert.deepEqual(await focusedIn(page, REPLAY), { id: 'timeline-toggle', inside: true });
  await page.locator(sel('step-forward', REPLAY)).click();
  await waitStepsOf(page, REPLAY, 9);
  assert.match(await progress().textContent(), /replayed: step 9 of 9, and a wakeup is lost/, 'still the replay');
  assert.ok(await page.locator(sel('step-forward', REPLAY)).isDisabled());
  assert.equal(page.url(), url);
  assertNoPageErrors();
});

test('a playing widget is paused by the hand-off; the address then follows the lazy one alone', { timeout: 90_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/thundering-herd?workers=4&cpus=2&mode=wake-all&connections=2000`);
  await waitForSim(page);
  await page.locator(sel('play', 'main')).click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent) > 3);
  await page.locator(sel('timeline-toggle', 'main')).click();
  await page.waitForSelector(`[data-testid="lazy"][data-what="timeline"] ${sel('timeline', 'main')} canvas[data-draw-ms]`);
  const at = await steps(page);
  assert.equal(await page.locator(sel('play', 'main')).getAttribute('aria-pressed'), 'false', 'paused');
  await page.waitForTimeout(700);
  assert.equal(await steps(page), at, 'nothing plays on behind the lazy one');
  assert.equal(urlStep(page), at, 'the address names the step shown');
  await page.locator(sel('step-forward', 'main')).click();
  await page.waitForTimeout(300);
  assert.equal(urlStep(page), at + 1);
  assertNoPageErrors();
});

test('a click on the timeline seeks the stepper and the address; keys zoom and pan', { timeout: 90_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openTimeline(page, 'workers=4&cpus=2&mode=wake-all&connections=20');
  const canvas = page.locator(sel('timeline-canvas', 'main'));
  const box = await canvas.boundingBox();
  assert.equal(await steps(page), 0);
  await canvas.click({ position: { x: 74 + (box.width - 74) * 0.6, y: 30 } });
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent) > 0);
  const forward = await steps(page);
  assert.equal(Number(await page.locator(sel('timeline', 'main')).getAttribute('data-cursor')), forward);
  assert.equal(urlStep(page), forward, 'the address keeps the step');
  await canvas.click({ position: { x: 74 + (box.width - 74) * 0.2, y: 30 } });
  await page.waitForFunction((f) => Number(document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent) < f, forward);
  const back = await steps(page);
  assert.ok(back < forward, `clicked left of the cursor: ${back} < ${forward}`);
  assert.equal(urlStep(page), back);
  // the stepper moves the cursor
  await page.locator(sel('step-forward', 'main')).click();
  assert.equal(Number(await page.locator(sel('timeline', 'main')).getAttribute('data-cursor')), back + 1);

  // keyboard: ] zooms in, Shift+→ pans right, [ zooms out
  await canvas.focus();
  const [a0, b0] = await view(page);
  await page.keyboard.press(']');
  const [a1, b1] = await view(page);
  assert.ok(b1 - a1 < b0 - a0, `] zooms in: ${b0 - a0} -> ${b1 - a1}`);
  await page.keyboard.press('Shift+ArrowRight');
  const [a2, b2] = await view(page);
  assert.ok(a2 > a1 && b2 - a2 === b1 - a1, `Shift+→ pans: ${a1} -> ${a2}`);
  assert.equal(await steps(page), back + 1, 'Shift+→ pans, it does not step');
  await page.keyboard.press('[');
  const [a3, b3] = await view(page);
  assert.ok(b3 - a3 > b2 - a2, '[ zooms out');
  // ↓ chooses the next lane, told in words
  await page.keyboard.press('ArrowDown');
  assert.match(await page.locator(sel('timeline-detail', 'main')).textContent(), /^thread 1 /);
  assertNoPageErrors();
});

test('axe: no serious or critical violation with the timeline open', { timeout: 120_000 }, async (t) => {
  const { page } = await openPage(t);
  await openTimeline(page, 'workers=4&connections=5');
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  });
  assert.deepEqual(found, []);
});

test('scrubbing 64 workers × 100,000 steps: frame times', { timeout: 300_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const built0 = Date.now();
  await openTimeline(page, 'workers=64&cpus=4&mode=wake-all&connections=1000');
  const buildMs = Date.now() - built0;
  const tl = page.locator(sel('timeline', 'main'));
  const stepsInTimeline = Number(await tl.getAttribute('data-steps'));
  assert.ok(stepsInTimeline >= 100_000, `the timeline holds ${stepsInTimeline} steps`);
  const canvas = tl.locator('[data-testid="timeline-canvas"]');
  const base = tl.locator('canvas.timeline-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const y = box.y + 40;
  const start = await steps(page);
  const rafAfter = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now()))));
  const now = () => page.evaluate(() => performance.now());
  await page.mouse.move(box.x + 80, y);
  await page.mouse.down();
  const frames = [];
  const cursorMs = [];
  for (let i = 0; i < 40; i++) {
    const x = box.x + 80 + ((box.width - 90) * (i < 20 ? i : 39 - i)) / 19;
    const t0 = await now();
    await page.mouse.move(x, y);
    frames.push((await rafAfter()) - t0);
    cursorMs.push(Number(await canvas.getAttribute('data-cursor-ms')));
  }
  const t0 = await now();
  await page.mouse.up();
  await page.waitForFunction((s) => Number(document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent) !== s, start);
  const seekMs = (await rafAfter()) - t0;
  // zoom and pan redraw the lanes
  await canvas.focus();
  const baseMs = [];
  for (const key of [']', ']', 'Shift+ArrowRight', 'Shift+ArrowLeft', '[', '[', ']', 'Shift+ArrowRight']) {
    await page.keyboard.press(key);
    await rafAfter();
    baseMs.push(Number(await base.getAttribute('data-draw-ms')));
  }
  if (process.env.TIMELINE_DEBUG) console.log(JSON.stringify({ frames, cursorMs, baseMs }));
  const med = (a) => [...a].sort((p, q) => p - q)[Math.floor(a.length / 2)];
  const p95 = (a) => [...a].sort((p, q) => p - q)[Math.floor(a.length * 0.95)];
  const f = (x) => x.toFixed(1);
  console.log(
    `timeline, 64 workers × ${stepsInTimeline} steps (${await tl.getAttribute('data-lanes')} lanes): built and drawn in ${buildMs} ms; ` +
      `scrubbing frame (move → next frame) median ${f(med(frames))} ms, p95 ${f(p95(frames))} ms (cursor draw median ${f(med(cursorMs))} ms); ` +
      `seek of the stepper on release ${f(seekMs)} ms; lanes redrawn on zoom/pan median ${f(med(baseMs))} ms, max ${f(Math.max(...baseMs))} ms`,
  );
  assert.notEqual(await steps(page), start, 'the drag seeked the stepper on release');
  assertNoPageErrors();
});

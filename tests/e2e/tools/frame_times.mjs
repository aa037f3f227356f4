// Frame times of the thundering-herd playground with 64 workers playing at full speed (what
// herd.test.mjs's fps test prints), for one or more builds of the site measured side by side:
// every round opens each URL in a fresh headless chromium, in turn (interleaved), plays for
// --secs seconds and records the time between animation frames; with --trace, Chromium's
// performance trace of the same window gives each frame's main-thread time by kind (script: the
// simulation, Yew's render and DOM diff; style; layout; paint), and the main thread's CPU time
// (its thread time, which other processes' load inflates less than wall time), the layout objects
// found dirty and the elements restyled per frame.
//
//   node tests/e2e/tools/frame_times.mjs [--rounds 5] [--secs 3] [--trace] [--board] URL [URL ...]
//
// Prints, per URL, every round's frame count and the medians over rounds of the frame time's
// median and 95th percentile (ms), the frames per second and the steps per second. Not a test:
// timings are printed, never asserted. State the machine's load (`uptime`) beside its figures.
// As in herd.test.mjs the page stays where the speed buttons are (the board below, out of view);
// --board scrolls the lanes into view first (the board drawn on every frame).

import { chromium } from 'playwright-core';

const CHROMIUM = process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium';
const QUERY = '?workers=64&cpus=4&mode=wake-all&arrival=poisson&rate=20000&connections=100000';

const args = process.argv.slice(2);
let rounds = 5;
let secs = 3;
let trace = false;
let board = false;
const urls = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--secs') secs = Number(args[++i]);
  else if (args[i] === '--trace') trace = true;
  else if (args[i] === '--board') board = true;
  else urls.push(args[i].replace(/\/+$/, ''));
}
if (urls.length === 0 || !(rounds > 0) || !(secs > 0)) {
  console.error('usage: frame_times.mjs [--rounds N] [--secs S] [--trace] [--board] URL [URL ...]');
  process.exit(2);
}

const sel = (id) => `[data-testid="sim-main"] [data-testid="${id}"]`;
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs) => quantile(xs, 0.5);

async function steps(page) {
  return Number((await page.locator(sel('counter-steps')).textContent()).trim());
}

/** Main-thread milliseconds per kind of work, from a devtools.timeline trace. */
function breakdown(json, frames) {
  const events = JSON.parse(json).traceEvents.filter((e) => e.ph === 'X' && e.dur);
  const kinds = {
    script: ['FunctionCall', 'FireAnimationFrame', 'TimerFire', 'EventDispatch', 'v8.run'],
    style: ['UpdateLayoutTree', 'RecalculateStyles'],
    layout: ['Layout'],
    paint: ['PrePaint', 'Paint', 'Layerize', 'UpdateLayer', 'CompositeLayers', 'Commit'],
  };
  // only the renderer's main thread: the thread with the most FireAnimationFrame events
  const byThread = new Map();
  for (const e of events) {
    if (e.name === 'FireAnimationFrame') byThread.set(`${e.pid}:${e.tid}`, (byThread.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  }
  const main = [...byThread.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const out = {};
  for (const [kind, names] of Object.entries(kinds)) {
    // top-level only: an event inside another of the same kind is not counted twice
    const evs = events
      .filter((e) => `${e.pid}:${e.tid}` === main && names.includes(e.name))
      .sort((a, b) => a.ts - b.ts);
    let total = 0;
    let end = -Infinity;
    for (const e of evs) {
      if (e.ts >= end) {
        total += e.dur;
        end = e.ts + e.dur;
      } else if (e.ts + e.dur > end) {
        total += e.ts + e.dur - end;
        end = e.ts + e.dur;
      }
    }
    out[kind] = total / 1000 / Math.max(1, frames);
  }
  // Less sensitive to the machine's load than the wall times above: the main thread's CPU time
  // (the trace's thread time of its top-level tasks), the objects each layout found dirty and
  // the elements each style recalculation restyled, all per frame.
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main);
  const sum = (name, f) => onMain.filter((e) => e.name === name).reduce((a, e) => a + (f(e) ?? 0), 0);
  out.cpu = sum('RunTask', (e) => e.tdur) / 1000 / Math.max(1, frames);
  out.dirty = sum('Layout', (e) => e.args?.beginData?.dirtyObjects) / Math.max(1, frames);
  out.restyled =
    (sum('UpdateLayoutTree', (e) => e.args?.elementCount) + sum('RecalculateStyles', (e) => e.args?.elementCount)) /
    Math.max(1, frames);
  return out;
}

async function once(url) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const context = await browser.newContext({ reducedMotion: 'no-preference', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${url}/#/lesson/thundering-herd${QUERY}`);
    await page.waitForSelector(sel('lane-63'), { state: 'attached' });
    for (let i = 0; i < 40; i++) {
      const up = page.locator(sel('speed-up'));
      if (!(await up.isEnabled())) break;
      await up.click();
    }
    if (board) {
      await page.evaluate(() => document.querySelector('[data-testid="sim-main"] .b-lanes').scrollIntoView());
    }
    // where the speed clicks left the page: the lanes in view or not (the same build measures
    // about twice the layout with them in view; compare rounds of like positions)
    const lanesInView = await page.evaluate(
      () => document.querySelector('[data-testid="sim-main"] .b-lanes').getBoundingClientRect().top < innerHeight,
    );
    const play = page.locator(sel('play'));
    if ((await play.getAttribute('aria-pressed')) !== 'true') await play.click();
    await page.waitForSelector(`${sel('play')}[aria-pressed="true"]`);
    // let the first frames (and the wasm's warm-up) pass
    await page.waitForTimeout(500);
    if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const s0 = await steps(page);
    const { deltas, ms } = await page.evaluate(
      (windowMs) =>
        new Promise((resolve) => {
          const deltas = [];
          let t0 = null;
          let last = null;
          const tick = (now) => {
            if (t0 === null) t0 = now;
            else deltas.push(now - last);
            last = now;
            if (now - t0 < windowMs) requestAnimationFrame(tick);
            else resolve({ deltas, ms: now - t0 });
          };
          requestAnimationFrame(tick);
        }),
      secs * 1000,
    );
    const s1 = await steps(page);
    const parts = trace ? breakdown((await browser.stopTracing()).toString(), deltas.length) : null;
    return {
      frames: deltas.length,
      median: median(deltas),
      p95: quantile(deltas, 0.95),
      fps: (deltas.length * 1000) / ms,
      lanesInView,
      stepsPerS: ((s1 - s0) * 1000) / ms,
      parts,
    };
  } finally {
    await browser.close();
  }
}

/** A frame's breakdown in words: wall ms by kind, main-thread CPU ms, dirty objects, restyled elements. */
function parts(keys, value) {
  const wall = ['script', 'style', 'layout', 'paint'].map((k) => `${k} ${value(k).toFixed(2)}`).join(', ');
  return `${wall} ms; main thread CPU ${value('cpu').toFixed(2)} ms, layout dirty ${Math.round(value('dirty'))}, restyled ${Math.round(value('restyled'))}`;
}

const results = urls.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let u = 0; u < urls.length; u++) {
    const res = await once(urls[u]);
    results[u].push(res);
    const p = res.parts ? ` | per frame: ${parts(res.parts, (k) => res.parts[k])}` : '';
    console.log(
      `round ${r + 1} ${urls[u]}: lanes ${res.lanesInView ? 'in view' : 'below'}, ${res.frames} frames, median ${res.median.toFixed(1)} ms, p95 ${res.p95.toFixed(1)} ms, ${res.fps.toFixed(1)} fps, ${Math.round(res.stepsPerS)} steps/s${p}`,
    );
  }
}
for (let u = 0; u < urls.length; u++) {
  const rs = results[u];
  const m = (f) => median(rs.map(f));
  let line = `${urls[u]}: frame median ${m((r) => r.median).toFixed(1)} ms, p95 ${m((r) => r.p95).toFixed(1)} ms, ${m((r) => r.fps).toFixed(1)} fps, ${Math.round(m((r) => r.stepsPerS))} steps/s (medians of ${rs.length} rounds)`;
  if (rs[0].parts) {
    line += ` | per frame: ${parts(rs[0].parts, (k) => m((r) => r.parts[k]))}`;
  }
  console.log(line);
}

// How long "Show the timeline" takes for 64 workers (the timeline of 100,000 steps), for one or
// more builds of the site side by side: every round opens the thundering-herd lesson in a fresh
// headless chromium for each URL in turn (interleaved), clicks "Show the timeline" and times the
// click → the timeline's canvas drawn (the lazy bundle's fetch and compile, its mount, the
// timeline's build, the first draw); then a click on the timeline at its middle → the stepper
// there (a seek of about 50,000 steps) and one back to a tenth (a seek back).
//
//   node tests/e2e/tools/timeline_open.mjs [--rounds 5] URL [URL ...]
//
// Prints every round and the medians over rounds (ms). Not a test: timings are printed, never
// asserted. State the machine's load (`uptime`) beside its figures.

import { chromium } from 'playwright-core';

const CHROMIUM = process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium';
const QUERY = 'workers=64&cpus=4&mode=wake-all&connections=1000';

const args = process.argv.slice(2);
let rounds = 5;
const urls = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else urls.push(args[i].replace(/\/+$/, ''));
}
if (urls.length === 0 || !(rounds > 0)) {
  console.error('usage: timeline_open.mjs [--rounds N] URL [URL ...]');
  process.exit(2);
}

const sel = (id) => `[data-testid="sim-main"] [data-testid="${id}"]`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function once(url) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await (await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${url}/#/lesson/thundering-herd?${QUERY}`);
    await page.waitForSelector(sel('code-line-1'));
    const drawn = `[data-testid="lazy"][data-what="timeline"] ${sel('timeline')} canvas[data-draw-ms]`;
    // the click and the wait in the page: no round trip to this process in the figure
    const open = await page.evaluate(
      (drawn) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          document.querySelector('[data-testid="sim-main"] [data-testid="timeline-toggle"]').click();
          const poll = () => {
            if (document.querySelector(drawn)) {
              requestAnimationFrame(() => resolve(performance.now() - t0));
            } else {
              setTimeout(poll, 1);
            }
          };
          poll();
        }),
      drawn,
    );
    const tl = page.locator(sel('timeline'));
    const steps = Number(await tl.getAttribute('data-steps'));
    const draw = Number(await page.locator(drawn).getAttribute('data-draw-ms'));
    const canvas = page.locator(sel('timeline-canvas'));
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const seek = async (frac) => {
      const before = (await page.locator(sel('counter-steps')).textContent()).trim();
      const t0 = await page.evaluate(() => performance.now());
      await page.mouse.click(box.x + 74 + (box.width - 80) * frac, box.y + 40);
      await page.waitForFunction(
        (b) => document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent.trim() !== b,
        before,
        { polling: 'raf' },
      );
      return (await page.evaluate(() => performance.now())) - t0;
    };
    const forward = await seek(0.5);
    const back = await seek(0.1);
    return { open, draw, steps, forward, back };
  } finally {
    await browser.close();
  }
}

const results = urls.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let u = 0; u < urls.length; u++) {
    const res = await once(urls[u]);
    results[u].push(res);
    console.log(
      `round ${r + 1} ${urls[u]}: open ${res.open.toFixed(0)} ms (first draw ${res.draw.toFixed(1)} ms, ${res.steps} steps); seek forward ${res.forward.toFixed(0)} ms, back ${res.back.toFixed(0)} ms`,
    );
  }
}
for (let u = 0; u < urls.length; u++) {
  const m = (f) => median(results[u].map(f));
  console.log(
    `${urls[u]}: open median ${m((r) => r.open).toFixed(0)} ms, first draw ${m((r) => r.draw).toFixed(1)} ms, seek forward ${m((r) => r.forward).toFixed(0)} ms, back ${m((r) => r.back).toFixed(0)} ms (medians of ${results[u].length} rounds)`,
  );
}

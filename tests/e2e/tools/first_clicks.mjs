// Stress for the "lost first click" of the browser tests (2026-12): opens a lesson in a fresh
// context again and again, clicks one simulation's step button three times and once back, and
// reports every page error and every click the page did not answer within 5 s, with what the page
// recorded (support.mjs's RECORDER: input events with their target and scroll position, scrolls,
// layout shifts). Not a test: a tool for finding a rare failure. It found this one: a press went
// down on the button and came up elsewhere after the page scrolled under it (see the regression
// test "lost first click" in layout.test.mjs).
//
//   node tests/e2e/tools/first_clicks.mjs [--rounds 100] [--slug thundering-herd] [--sim main] URL
//
// Exit status 1 when some round failed.

import { chromium } from 'playwright-core';
import { RECORDER } from '../support.mjs';

const CHROMIUM = process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium';
const args = process.argv.slice(2);
let rounds = 100;
let slug = 'thundering-herd';
let sim = 'main';
let base;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--slug') slug = args[++i];
  else if (args[i] === '--sim') sim = args[++i];
  else base = args[i].replace(/\/+$/, '');
}
if (!base || !(rounds > 0)) {
  console.error('usage: first_clicks.mjs [--rounds N] [--slug SLUG] [--sim ID] URL');
  process.exit(2);
}
const sel = (id) => `[data-testid="sim-${sim}"] [data-testid="${id}"]`;
const steps = async (page) => Number((await page.locator(sel('counter-steps')).textContent()).trim());

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
});
let failed = 0;
for (let r = 0; r < rounds; r++) {
  const context = await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 } });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`${e}\n${e.stack ?? ''}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  let lost = null;
  try {
    await page.goto(`${base}/#/lesson/${slug}`);
    await page.waitForSelector(sel('code-line-1'), { timeout: 30000 });
    for (const [button, delta] of [['step-forward', 1], ['step-forward', 1], ['step-forward', 1], ['step-back', -1]]) {
      const before = await steps(page);
      await page.locator(sel(button)).click({ timeout: 10000 });
      try {
        await page.waitForFunction(
          ([s, want]) => Number(document.querySelector(s)?.textContent.trim()) === want,
          [sel('counter-steps'), before + delta],
          { timeout: 5000, polling: 50 },
        );
      } catch {
        const state = await page.evaluate(async () => ({
          frame: await Promise.race([
            new Promise((ok) => requestAnimationFrame(() => ok('yes'))),
            new Promise((ok) => setTimeout(() => ok('none within 1 s'), 1000)),
          ]),
          visibility: document.visibilityState,
          log: window.__herdlabLog,
        }));
        let later = await steps(page);
        await page.locator(sel(button)).click({ timeout: 10000 });
        await page.waitForTimeout(2000);
        lost = `${button} from ${before}: ${later} after 5 s; ${await steps(page)} after a second click\n${JSON.stringify(state, null, 1)}\n${JSON.stringify(await page.evaluate(() => window.__herdlabLog.slice(-15)), null, 1)}`;
        break;
      }
    }
  } catch (e) {
    lost = `round error: ${e}`;
  }
  if (lost || errors.length) {
    failed++;
    console.log(`round ${r}: ${lost ?? 'clicks answered'}; errors: ${errors.length ? errors.join('\n  ') : 'none'}`);
  }
  await context.close();
  if ((r + 1) % 20 === 0) console.log(`${r + 1} rounds, ${failed} failed`);
}
await browser.close();
console.log(`done: ${rounds} rounds, ${failed} failed`);
process.exit(failed ? 1 : 0);

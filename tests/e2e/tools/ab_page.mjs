// Old against new `#/bench` pages, on a loaded machine: VARIANTS=name=URL,name=URL (each a served
// dist), ROUNDS rounds, each round every variant once in a fresh page, in alternating order.
// Prints the page's own rate (steps per wall second of its counted second) and the rate per
// CPU-second of the page's main thread: both timed seconds' steps (the warm-up's at its shown rate)
// over the main thread's CPU time from navigation to the result (Chrome's `ThreadTime` metric,
// which includes the page's start, ~0.1 s, alike for every variant). On a quiet machine the two
// agree within a few percent; when other processes share the CPUs the wall rate drops with them
// and the CPU rate does not, so it compares builds when no quiet minute comes. A measurement, not a
// test (`cargo xtask test` runs only *.test.mjs).
//
//   VARIANTS=old=http://127.0.0.1:8810,new=http://127.0.0.1:8811 ROUNDS=7 node tests/e2e/tools/ab_page.mjs
import { chromium } from 'playwright-core';

const variants = (process.env.VARIANTS ?? '').split(',').filter(Boolean).map((s) => s.split('='));
if (variants.length === 0) throw new Error('VARIANTS=name=URL,name=URL is needed');
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const browser = await chromium.launch({
  executablePath: process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});

/** One fresh page of `url`'s #/bench: [wall rate, rate per CPU-second of the main thread]. */
async function once(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const threadTime = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
  await page.goto(`${url.replace(/\/+$/, '')}/#/bench`, { waitUntil: 'commit' });
  const t0 = await threadTime();
  await page.waitForSelector('[data-testid=bench-rate]', { timeout: 60_000 });
  const t1 = await threadTime();
  const rate = Number(await page.textContent('[data-testid=bench-rate]'));
  const steps = Number(await page.textContent('[data-testid=bench-steps]'));
  const cold = Number(await page.textContent('[data-testid=bench-cold-rate]'));
  await context.close();
  return [rate, (steps + cold) / (t1 - t0)];
}

const wall = Object.fromEntries(variants.map(([n]) => [n, []]));
const cpu = Object.fromEntries(variants.map(([n]) => [n, []]));
const m = (x) => (x / 1e6).toFixed(2);
for (let r = 1; r <= ROUNDS; r++) {
  const line = [];
  for (const [name, url] of r % 2 ? variants : [...variants].reverse()) {
    const [w, c] = await once(url);
    wall[name].push(w);
    cpu[name].push(c);
    line.push(`${name} ${m(w)} (cpu ${m(c)})`);
  }
  console.log(`round ${r}: ${line.join('  ')}`);
}
await browser.close();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
for (const [n] of variants) {
  console.log(
    `${n}: median ${m(median(wall[n]))} M steps/s (${m(Math.min(...wall[n]))}-${m(Math.max(...wall[n]))}); ` +
      `per CPU-second of the main thread ${m(median(cpu[n]))} (${m(Math.min(...cpu[n]))}-${m(Math.max(...cpu[n]))})`,
  );
}

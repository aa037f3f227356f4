// Where the `#/bench` page's time goes: Chrome's sampling profiler (CDP `Profiler`) over one fresh
// page, self time per function, the TOP (default 30) largest. The release wasm has no names: serve
// a copy of dist/ whose main wasm is wasm-opt'd as trunk does but with `-g` (keep the names), e.g.
//   wasm-opt -g -Oz --low-memory-unused -Oz target/wasm-bindgen/release/herdlab-web_bg.wasm \
//     -o COPY/herdlab-web-<hash>_bg.wasm
// and compare with `perf record` of `herdlab sim` on the scenario the page names. A measurement,
// not a test.
//
//   HERDLAB_URL=http://127.0.0.1:8813 node tests/e2e/tools/prof_page.mjs
import { chromium } from 'playwright-core';

const BASE = (process.env.HERDLAB_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const browser = await chromium.launch({
  executablePath: process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const context = await browser.newContext();
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.goto(`${BASE}/#/bench`);
await page.waitForSelector('[data-testid=bench-rate]', { timeout: 60_000 });
const { profile } = await cdp.send('Profiler.stop');
console.log(`rate ${await page.textContent('[data-testid=bench-rate]')} steps/s`);
await browser.close();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
for (const id of profile.samples) {
  const f = byId.get(id).callFrame;
  const k = f.functionName || f.url || '(anonymous)';
  self.set(k, (self.get(k) ?? 0) + 1);
}
const total = profile.samples.length;
for (const [k, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 30))) {
  console.log(`${((100 * c) / total).toFixed(1).padStart(5)}%  ${k.slice(0, 160)}`);
}

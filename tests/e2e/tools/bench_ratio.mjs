// The page's simulator against the native one, on the same scenario: ROUNDS interleaved rounds of
// `#/bench` in a fresh headless chromium page, then `herdlab sim` on the scenario the page names.
// Prints each round and the medians. A measurement, not a test (`cargo xtask test` runs only
// *.test.mjs); on a loaded machine the rounds spread widely, so read the median of many.
//
//   HERDLAB_URL=http://127.0.0.1:PORT/ HERDLAB_BIN=target/release/herdlab ROUNDS=9 \
//     node tests/e2e/tools/bench_ratio.mjs
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const BASE = (process.env.HERDLAB_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const BIN = process.env.HERDLAB_BIN ?? 'target/release/herdlab';
const ROUNDS = Number(process.env.ROUNDS ?? 9);

const browser = await chromium.launch({
  executablePath: process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const rows = [];
for (let r = 1; r <= ROUNDS; r++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${BASE}/#/bench`);
  await page.waitForSelector('[data-testid=bench-rate]', { timeout: 60_000 });
  const query = await page.textContent('.scenario code');
  const inPage = Number(await page.textContent('[data-testid=bench-rate]'));
  await context.close();
  // mechanism=herd&workers=64&… → herdlab sim herd --workers 64 … --json
  const pairs = query.split('&').map((kv) => kv.split('='));
  const mechanism = pairs.find(([k]) => k === 'mechanism')[1];
  const args = ['sim', mechanism];
  for (const [k, v] of pairs) if (k !== 'mechanism') args.push(`--${k}`, v);
  args.push('--json');
  const native = JSON.parse(execFileSync(BIN, args, { encoding: 'utf8' })).steps_per_sec;
  rows.push({ inPage, native, ratio: inPage / native });
  console.log(
    `round ${r}: page ${(inPage / 1e6).toFixed(2)} M steps/s, native ${(native / 1e6).toFixed(2)} M steps/s, ratio ${(inPage / native).toFixed(3)}`,
  );
}
await browser.close();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const ratios = rows.map((x) => x.ratio);
console.log(
  `median of ${rows.length}: page ${(median(rows.map((x) => x.inPage)) / 1e6).toFixed(2)} M steps/s, ` +
    `native ${(median(rows.map((x) => x.native)) / 1e6).toFixed(2)} M steps/s, ratio ${median(ratios).toFixed(3)} ` +
    `(rounds ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
);

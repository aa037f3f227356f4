// Browser test: nothing in a widget clips, truncates or overlaps, at every width a learner may read
// a lesson at (360 to 1920 px). Each lesson is loaded at 360, 390, 768, 1366 and 1920 px wide and,
// after a few steps of every widget (so lanes carry their details and marks), every element inside
// a widget is checked:
// - its content must fit its box (scrollWidth <= clientWidth + 1), unless it is an intended scroll
//   container (overflow-x auto or scroll: the code listings, the wide tables) or a form field;
// - text must not be cut with an ellipsis (text-overflow: ellipsis on an element that overflows);
// - no two controls (buttons, inputs, selects) of a widget may overlap.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/layout.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage, waitForSim } from './support.mjs';

export const LESSONS = ['thundering-herd', 'nginx-shmtx', 'epoll-herd', 'nginx-accept-mutex'];
const WIDTHS = [360, 390, 768, 1366, 1920];

useBrowser();

/** Runs in the page: every clipped element and every pair of overlapping controls in widgets. */
function findLayoutFaults() {
  const faults = [];
  const describe = (el) => {
    const id = el.closest('[data-testid]')?.getAttribute('data-testid') ?? '';
    const cls = typeof el.className === 'string' ? el.className : '';
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls.trim().split(/\s+/).join('.') : ''} in [${id}]`;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const scrolls = (s) => s.overflowX === 'auto' || s.overflowX === 'scroll';
  for (const widget of document.querySelectorAll('.widget')) {
    for (const el of [widget, ...widget.querySelectorAll('*')]) {
      if (!visible(el) || el.matches('input, select, textarea, option, svg, svg *')) continue;
      const s = getComputedStyle(el);
      if (scrolls(s)) continue;
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
        faults.push(`${describe(el)} overflows: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth} (“${el.textContent.trim().slice(0, 60)}”)`);
      }
    }
    // inside no scroll container, every element must lie within the widget's width
    const box = widget.getBoundingClientRect();
    for (const el of widget.querySelectorAll('*')) {
      if (!visible(el) || el.closest('.code, table, .table-scroll')) continue;
      const r = el.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1) {
        faults.push(`${describe(el)} sticks out of its widget (${Math.round(r.left)}..${Math.round(r.right)} vs ${Math.round(box.left)}..${Math.round(box.right)})`);
      }
    }
    const controls = [...widget.querySelectorAll('button, input, select, textarea')]
      .filter((el) => visible(el) && el.closest('.widget') === widget);
    const rects = controls.map((el) => el.getBoundingClientRect());
    for (let i = 0; i < controls.length; i++) {
      for (let j = i + 1; j < controls.length; j++) {
        const a = rects[i];
        const b = rects[j];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) {
          faults.push(`${describe(controls[i])} “${controls[i].textContent.trim()}” overlaps ${describe(controls[j])} “${controls[j].textContent.trim()}”`);
        }
      }
    }
  }
  // the page itself must not scroll sideways
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
    faults.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${document.documentElement.clientWidth}`);
  }
  return [...new Set(faults)];
}

for (const slug of LESSONS) {
  test(`lesson ${slug}: nothing in its widgets clips, truncates or overlaps at ${WIDTHS.join(', ')} px`, { timeout: 180_000 }, async (t) => {
    const { page, assertNoPageErrors } = await openPage(t);
    await page.goto(`${BASE}/#/lesson/${slug}`);
    await waitForSim(page);
    // a few steps in every widget, so that lanes show their details and marks
    const forwards = page.locator('[data-testid="step-forward"]:not([disabled])');
    const n = await forwards.count();
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 6; k++) {
        const b = forwards.nth(i);
        if (!(await b.isEnabled().catch(() => false))) break;
        await b.click();
      }
    }
    // every <details> open, so that what they hold is checked too
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
    const all = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      // let the layout settle (content-visibility: auto renders what comes into view)
      await page.evaluate(async () => {
        for (const w of document.querySelectorAll('.widget')) w.scrollIntoView();
        window.scrollTo(0, 0);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      });
      const faults = await page.evaluate(findLayoutFaults);
      all.push(...faults.map((f) => `${width} px: ${f}`));
    }
    assert.deepEqual(all, [], `layout faults in lesson ${slug}`);
    assertNoPageErrors();
  });
}

// Regression (lost first click, 2026-12): lesson prose had `content-visibility: auto` with a
// 900 px estimate, so the frame after a scroll drew the prose near the viewport at its real height
// and Chrome's scroll anchoring moved the page by up to ~860 px. A press that came in that frame
// went down on a widget's step button and up somewhere else: no click (one or two first clicks a
// full browser run, in a different test each time). Every simulation's step button, scrolled into
// view in a freshly opened lesson, must stay where it is over the frames that follow.
const ALL_LESSONS = [...LESSONS, 'nginx-thread-pool', 'go-scheduler', 'mysql-thread-per-connection', 'mysql-thread-pool'];
for (const slug of ALL_LESSONS) {
  test(`lost first click: lesson ${slug}'s step buttons stay put the frames after they scroll into view`, { timeout: 120_000 }, async (t) => {
    const { page, assertNoPageErrors } = await openPage(t);
    await page.goto(`${BASE}/#/lesson/${slug}`);
    await page.waitForSelector('[data-testid="step-forward"]');
    // the lazily drawn widgets too (their placeholders are gone)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="lazy-loading"]').length === 0);
    const n = await page.locator('[data-testid="step-forward"]').count();
    assert.ok(n >= 1, `lesson ${slug} has step buttons`);
    const moved = [];
    for (let i = 0; i < n; i++) {
      const tops = await page.evaluate(async (i) => {
        const b = document.querySelectorAll('[data-testid="step-forward"]')[i];
        b.scrollIntoView({ block: 'center' });
        const tops = [b.getBoundingClientRect().top];
        for (let f = 0; f < 4; f++) {
          await new Promise((r) => requestAnimationFrame(r));
          tops.push(b.getBoundingClientRect().top);
        }
        await new Promise((r) => setTimeout(r, 150));
        tops.push(b.getBoundingClientRect().top);
        return tops.map((y) => Math.round(y * 10) / 10);
      }, i);
      if (tops.some((y) => Math.abs(y - tops[0]) > 0.5)) {
        const sim = await page.locator('[data-testid="step-forward"]').nth(i).evaluate((b) => b.closest('[data-testid^="sim-"]')?.dataset.testid);
        moved.push(`${sim}: ${tops.join(' → ')}`);
      }
    }
    assert.deepEqual(moved, [], `step buttons of lesson ${slug} that moved after scrolling into view (y per frame)`);
    assertNoPageErrors();
  });
}

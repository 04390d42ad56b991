/**
 * The checks made in every state the tests reach: no sideways scroll (WCAG 1.4.10 Reflow) and no
 * axe-core violation of WCAG 2.2 A/AA, at each width, with a screenshot of each.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ARTIFACTS, WIDTHS, type Width } from './app';

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const HEIGHTS: Record<Width, number> = { 320: 640, 390: 844, 1280: 860 };

/** Elements wider than the viewport, and the page's own sideways scroll, if any. */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const problems: string[] = [];
    if (root.scrollWidth > width)
      problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${width}`);
    for (const element of document.querySelectorAll<HTMLElement>('body *')) {
      const style = getComputedStyle(element);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      const box = element.getBoundingClientRect();
      const name = `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(' ').join('.')}` : ''}`;
      if (box.width > 0 && (box.right > width + 0.5 || box.left < -0.5)) {
        problems.push(
          `${name} sticks out: ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`,
        );
      }
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      if (scrolls && element.scrollWidth > element.clientWidth + 1) {
        problems.push(`${name} scrolls sideways: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    return problems;
  });
}

export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.addScriptTag({ path: AXE_SOURCE });
  }
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
  }, WCAG_22_AA);
}

/**
 * The current state at 320, 390 and 1280 px: no sideways scroll, no axe violation, a
 * screenshot `<state>-<width>.png`. Leaves the page at its starting width.
 */
export async function checkState(
  page: Page,
  state: string,
  widths: readonly Width[] = WIDTHS,
): Promise<void> {
  const start = page.viewportSize();
  for (const width of widths) {
    await page.setViewportSize({ width, height: HEIGHTS[width] });
    // Let layout (and the media-query-driven list) settle.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    expect(await sidewaysOverflow(page), `${state} at ${width} px`).toEqual([]);
    expect(await axeViolations(page), `${state} at ${width} px`).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}${state}-${width}.png`, fullPage: true });
  }
  if (start) await page.setViewportSize(start);
}

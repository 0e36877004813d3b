import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The page's serious and critical axe violations, each as `rule (targets)`: expected to be none. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const audit = await new AxeBuilder({ page }).analyze();
  return audit.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/**
 * The page as a phone shows it: how wide the document is against the viewport, and the elements
 * that stick out of it on either side (as `tag.class "text"`).
 */
const SIDEWAYS = `(() => {
  const width = document.documentElement.clientWidth;
  const outside = [];
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      outside.push(element.tagName.toLowerCase() + '.' + element.className + ' "' + (element.textContent ?? '').trim().slice(0, 40) + '"');
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, outside };
})()`;

/** Nothing sticks out sideways and the page does not scroll sideways. */
export async function expectNothingSideways(page: Page): Promise<void> {
  const layout = await page.evaluate<{ scrollWidth: number; innerWidth: number; outside: string[] }>(
    SIDEWAYS,
  );
  expect(layout.outside).toEqual([]);
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
}

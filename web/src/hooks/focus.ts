/**
 * Moves focus to the page's heading: after a page change (a screen reader starts reading the new
 * page) or when the element that had focus is gone (a deleted row).
 */
export function focusPageHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h1');
  if (heading === null) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: false });
}

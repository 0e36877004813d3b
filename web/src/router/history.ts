import { useSyncExternalStore } from 'react';

/**
 * A very small router on the History API: the location is an external store, navigation is
 * pushState/replaceState plus a notification (the browser fires popstate only for back/forward).
 */
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

function currentLocation(): string {
  return window.location.pathname + window.location.search;
}

export interface AppLocation {
  pathname: string;
  searchParams: URLSearchParams;
}

/** The current path and query; the component re-renders when they change. */
export function useLocation(): AppLocation {
  // Server rendering (tests render components to HTML) has no window: the root path then.
  const href = useSyncExternalStore(subscribe, currentLocation, () => '/');
  const url = new URL(href, 'http://app.invalid');
  return { pathname: url.pathname, searchParams: url.searchParams };
}

let focusKept = false;

/**
 * Goes to a page of the app. `keepFocus`: the same page under a new address (a new chat getting its
 * URL), so focus and scroll stay where the person is instead of moving to the page's heading.
 */
export function navigate(to: string, options: { replace?: boolean; keepFocus?: boolean } = {}): void {
  if (to === currentLocation()) return;
  focusKept = options.keepFocus === true;
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** Whether the last navigation asked to keep focus where it is; asking clears it. */
export function takeKeptFocus(): boolean {
  const kept = focusKept;
  focusKept = false;
  return kept;
}

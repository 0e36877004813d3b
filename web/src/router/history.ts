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

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentLocation()) return;
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

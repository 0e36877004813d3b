import { useEffect, useRef, useState } from 'react';
import { describeError, isAbort } from '../api/http';

export type Loaded<T> =
  /** `previous`: what was shown before this load, kept on screen meanwhile (a refresh does not blank the page). */
  | { state: 'loading'; previous?: T }
  | { state: 'failed'; error: unknown; message: string }
  | { state: 'loaded'; value: T };

/**
 * Loads what a page shows, again whenever `key` changes (the request before is aborted). A null key
 * loads nothing. The loading and failed states are explicit, for the page to say so.
 */
export function useLoader<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setLoaded((previous) =>
      previous.state === 'loaded' ? { state: 'loading', previous: previous.value } : previous,
    );
    loadRef.current(controller.signal).then(
      (value) => setLoaded({ state: 'loaded', value }),
      (error: unknown) => {
        if (!isAbort(error)) setLoaded({ state: 'failed', error, message: describeError(error) });
      },
    );
    return () => controller.abort();
  }, [key]);

  return loaded;
}

/** The value to show: the loaded one, or the one before while a refresh runs. */
export function shownValue<T>(loaded: Loaded<T>): T | undefined {
  if (loaded.state === 'loaded') return loaded.value;
  if (loaded.state === 'loading') return loaded.previous;
  return undefined;
}

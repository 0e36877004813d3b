import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from '../api/http';
import { type Poller, type PollOutcome, startPoller } from '../lib/poller';

export interface Polled<T> {
  /** The latest value loaded; kept while a later refresh fails or a new `key` loads. */
  value: T | undefined;
  /** The latest refresh's failure in words; undefined once one succeeds. */
  error: string | undefined;
  /** Loads now. */
  refresh: () => void;
}

/**
 * Loads what a page shows and keeps it fresh: again after each outcome's `delayAfter`, never while
 * the page is hidden (at once when it is shown again), and no more once the page is left. A new
 * `key` starts over at once.
 */
export function usePolling<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  delayAfter: (outcome: PollOutcome<T>) => number,
): Polled<T> {
  const [state, setState] = useState<{ value: T | undefined; error: string | undefined }>({
    value: undefined,
    error: undefined,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const delayRef = useRef(delayAfter);
  delayRef.current = delayAfter;
  const poller = useRef<Poller | undefined>(undefined);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is what starts a new poll
  useEffect(() => {
    const started = startPoller<T>({
      load: (signal) => loadRef.current(signal),
      delayAfter: (outcome) => delayRef.current(outcome),
      onOutcome: (outcome) =>
        setState((previous) =>
          outcome.ok
            ? { value: outcome.value, error: undefined }
            : { value: previous.value, error: describeError(outcome.error) },
        ),
    });
    poller.current = started;
    return () => started.stop();
  }, [key]);

  const refresh = useCallback(() => poller.current?.refresh(), []);
  return { ...state, refresh };
}

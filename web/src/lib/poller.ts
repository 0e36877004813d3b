/** Whether the page is shown, and word when that changes (the Page Visibility API, or a stand-in). */
export interface Visibility {
  hidden(): boolean;
  /** Calls `listener` on every change; answers how to stop. */
  onChange(listener: () => void): () => void;
}

export const documentVisibility: Visibility = {
  hidden: () => document.visibilityState === 'hidden',
  onChange(listener) {
    document.addEventListener('visibilitychange', listener);
    return () => document.removeEventListener('visibilitychange', listener);
  },
};

export type PollOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface PollerOptions<T> {
  /** One load; `signal` aborts it when it is no longer wanted. */
  load(signal: AbortSignal): Promise<T>;
  /** Each load's outcome, in order; never one that was superseded or stopped. */
  onOutcome(outcome: PollOutcome<T>): void;
  /** How long to wait after this outcome before loading again, in ms. */
  delayAfter(outcome: PollOutcome<T>): number;
  visibility?: Visibility;
}

export interface Poller {
  /** Loads now (the pending wait is dropped, a load under way is replaced). */
  refresh(): void;
  /** No more loads: the one under way is aborted, the wait dropped. */
  stop(): void;
}

/**
 * Loads at once, then again after each outcome's delay, one load at a time. While the page is
 * hidden nothing is loaded (the load under way is aborted); once it is shown again, it loads at
 * once.
 */
export function startPoller<T>(options: PollerOptions<T>): Poller {
  const visibility = options.visibility ?? documentVisibility;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: AbortController | undefined;

  function clearTimer() {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  function abortCurrent() {
    current?.abort();
    current = undefined;
  }

  function load() {
    clearTimer();
    abortCurrent();
    if (stopped || visibility.hidden()) return;
    const controller = new AbortController();
    current = controller;
    const settle = (outcome: PollOutcome<T>) => {
      // A load that was replaced, aborted or stopped tells nothing.
      if (stopped || current !== controller) return;
      current = undefined;
      options.onOutcome(outcome);
      if (stopped || visibility.hidden()) return;
      timer = setTimeout(load, options.delayAfter(outcome));
    };
    options.load(controller.signal).then(
      (value) => settle({ ok: true, value }),
      (error: unknown) => settle({ ok: false, error }),
    );
  }

  const unsubscribe = visibility.onChange(() => {
    if (visibility.hidden()) {
      clearTimer();
      abortCurrent();
    } else {
      load();
    }
  });
  load();

  return {
    refresh: load,
    stop() {
      stopped = true;
      clearTimer();
      abortCurrent();
      unsubscribe();
    },
  };
}

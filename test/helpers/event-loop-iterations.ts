/**
 * Counts the event loop's iterations from now on: an immediate queued from its own callback runs
 * in the next one. Work that records `current()` as it goes shows how many turns it was spread
 * over, by counting rather than timing.
 */
export function countEventLoopIterations(): { current(): number; stop(): void } {
  let iteration = 0;
  let counting = true;
  const count = () => {
    iteration += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    current: () => iteration,
    stop: () => {
      counting = false;
    },
  };
}

/**
 * Runs at most `limit` tasks at once, the others waiting their turn in order: several files upload
 * side by side without opening twenty connections at once.
 */
export function createLimiter(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];

  function release() {
    running -= 1;
    const next = waiting.shift();
    if (next !== undefined) {
      running += 1;
      next();
    }
  }

  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}

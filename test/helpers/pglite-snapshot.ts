import { readFileSync } from 'node:fs';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated in-memory PGlite (with pg-boss's schema), for test apps to start from. */
    pgliteSnapshot: string;
  }
}

let snapshot: Blob | undefined;

/** The saved database as a Blob, read once per test process; undefined outside the PGlite project. */
export function pgliteSnapshot(): Blob | undefined {
  if (snapshot !== undefined) return snapshot;
  let file: string | undefined;
  try {
    file = inject('pgliteSnapshot');
  } catch {
    return undefined;
  }
  if (file === undefined) return undefined;
  snapshot = new Blob([readFileSync(file)]);
  return snapshot;
}

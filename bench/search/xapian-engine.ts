// Xapian BM25 (bench/search/xapian_bm25.py, under Debian's Python with python3-xapian) as a child
// process answering one query a line: the reference engine bench/search/xapian-run.ts times the
// service against.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { deferCleanup } from '../lib/children.js';

/** Debian's Python: python3-xapian is installed for it, not for another python3 on PATH. */
const PYTHON = '/usr/bin/python3';
/** PostgreSQL's English stop words, which the service's analysis drops. */
const STOP_WORDS = '/usr/share/postgresql/15/tsearch_data/english.stop';
const SERVER = fileURLToPath(new URL('./xapian_bm25.py', import.meta.url));

/**
 * Whether Xapian can run here, installing python3-xapian with apt when it is missing and this
 * process may; otherwise why not (the section then says it was skipped).
 */
export function xapianAvailable(progress: (line: string) => void): string | undefined {
  const importable = () =>
    existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import xapian'], { stdio: 'ignore' }).status === 0;
  if (!existsSync(STOP_WORDS)) return `PostgreSQL's English stop words are not at ${STOP_WORDS}`;
  if (importable()) return undefined;
  if (process.getuid?.() !== 0) return 'python3-xapian is not installed (apt-get install python3-xapian)';
  progress('installing python3-xapian (apt-get)');
  const installed = spawnSync('apt-get', ['install', '-y', 'python3-xapian'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (installed.status !== 0 || !importable()) return 'python3-xapian could not be installed with apt-get';
  return undefined;
}

export interface XapianEngine {
  readonly pid: number;
  readonly documents: number;
  /** The ids of the best `k` documents, and the round trip in ms (writing the query to reading the answer). */
  search(query: string, k: number): Promise<{ ids: string[]; ms: number }>;
  stop(): Promise<void>;
}

/** Indexes the documents (id, text) in a new Xapian database and answers queries until stopped. */
export async function startXapian(
  documents: readonly { readonly id: string; readonly text: string }[],
): Promise<XapianEngine> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-xapian-corpus-'));
  const corpus = path.join(folder, 'corpus.jsonl');
  writeFileSync(corpus, documents.map((document) => JSON.stringify(document)).join('\n'));
  const child = spawn(PYTHON, [SERVER, corpus, STOP_WORDS], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const stop = deferCleanup(async () => {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    rmSync(folder, { recursive: true, force: true });
  });
  const nextLine = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done === true) throw new Error(`Xapian exited (${child.exitCode ?? child.signalCode})`);
    return value;
  };
  const ready = JSON.parse(await nextLine()) as { ready: number };
  if (child.pid === undefined) throw new Error('Xapian has no pid');
  const pid = child.pid;
  return {
    pid,
    documents: ready.ready,
    async search(query, k) {
      const started = performance.now();
      child.stdin.write(`${JSON.stringify({ query, k })}\n`);
      const { ids } = JSON.parse(await nextLine()) as { ids: string[] };
      return { ids, ms: performance.now() - started };
    },
    stop,
  };
}

// The big Markdown file of `bench/indexing --section=reads`: real Markdown, the README.md of
// every package under node_modules (read in path order, each under a `# <package>` heading,
// exact duplicates once), repeated until the file reaches its size. The same node_modules give
// the same bytes; the file is written under node_modules/.cache/bench-indexing, for
// `curl -F file=@…` by hand.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';

const NODE_MODULES = path.join(ROOT, 'node_modules');
const CACHE_DIR = path.join(NODE_MODULES, '.cache/bench-indexing');

export interface BigMarkdown {
  readonly path: string;
  readonly bytes: Buffer;
  /** Distinct READMEs in one round. */
  readonly readmes: number;
  /** Bytes of one round (every README once). */
  readonly roundBytes: number;
  /** How many times the round is repeated (the last one cut at a line end). */
  readonly rounds: number;
  /** The first 12 hex digits of the file's SHA-256. */
  readonly sha256: string;
}

function findReadmes(directory: string, found: string[]): void {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '.cache' || entry.name === '.bin') continue;
      findReadmes(full, found);
    } else if (entry.isFile() && entry.name.toLowerCase() === 'readme.md') {
      found.push(full);
    }
  }
}

/** The package a README belongs to: the nearest package.json's name, else its folder. */
function packageName(readme: string): string {
  const directory = path.dirname(readme);
  try {
    const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
      name?: unknown;
    };
    if (typeof manifest.name === 'string' && manifest.name !== '') return manifest.name;
  } catch {
    // No manifest beside it (a README inside a package's folder): name it by its path.
  }
  return path.relative(NODE_MODULES, directory);
}

/** Builds (or rebuilds: it takes a second) the file of `targetBytes` bytes, at most. */
export function buildBigMarkdown(targetBytes: number): BigMarkdown {
  const files: string[] = [];
  findReadmes(NODE_MODULES, files);
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const seen = new Set<string>();
  const sections: string[] = [];
  for (const file of files) {
    // Text PostgreSQL stores: no NUL characters (invalid UTF-8 already became U+FFFD).
    const text = readFileSync(file, 'utf8').replaceAll('\u0000', '').replaceAll('\r\n', '\n').trim();
    if (text === '') continue;
    const digest = createHash('sha256').update(text).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    sections.push(`# ${packageName(file)}\n\n${text}\n\n`);
  }
  if (sections.length === 0) throw new Error(`no README.md under ${NODE_MODULES}: run npm ci`);
  const round = Buffer.from(sections.join(''), 'utf8');
  const rounds = Math.ceil(targetBytes / round.length);
  let bytes = Buffer.concat(Array.from({ length: rounds }, () => round)).subarray(0, targetBytes);
  // End at a line end, so that no UTF-8 sequence or line is cut.
  const lastNewline = bytes.lastIndexOf(0x0a);
  if (lastNewline > 0) bytes = bytes.subarray(0, lastNewline + 1);
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = path.join(CACHE_DIR, `big-${targetBytes}.md`);
  writeFileSync(file, bytes);
  return {
    path: file,
    bytes,
    readmes: sections.length,
    roundBytes: round.length,
    rounds,
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 12),
  };
}

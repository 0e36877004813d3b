import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths.js';

/** Where every benchmark writes its figures, each into its own marked section. */
export const BENCHMARKS_FILE = path.join(ROOT, 'docs/benchmarks.md');

const NEW_FILE = `# Benchmarks

Figures written by the scripts under \`bench/\`; each script replaces only its own section,
between \`<!-- bench:NAME:start -->\` and \`<!-- bench:NAME:end -->\`.
`;

export function sectionMarkers(name: string): { start: string; end: string } {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`invalid section name ${name}`);
  return { start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` };
}

/**
 * Replaces the text between a section's markers, or adds the section when it has none yet: after
 * section `after` when that one is there, else at the end.
 */
export function replaceSection(document: string, name: string, content: string, after?: string): string {
  const { start, end } = sectionMarkers(name);
  const block = `${start}\n${content.trim()}\n${end}`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from >= 0 && to > from) return `${document.slice(0, from)}${block}${document.slice(to + end.length)}`;
  if (from >= 0 || to >= 0) throw new Error(`${name}: unbalanced markers in the benchmarks file`);
  const previous = after === undefined ? -1 : document.indexOf(sectionMarkers(after).end);
  if (previous >= 0 && after !== undefined) {
    const at = previous + sectionMarkers(after).end.length;
    return `${document.slice(0, at)}\n\n${block}${document.slice(at)}`;
  }
  return `${document.trimEnd()}\n\n${block}\n`;
}

/** Writes one benchmark's section of docs/benchmarks.md, leaving the others as they are. */
export function writeSection(name: string, content: string, file = BENCHMARKS_FILE, after?: string): void {
  const document = existsSync(file) ? readFileSync(file, 'utf8') : NEW_FILE;
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, replaceSection(document, name, content, after));
  renameSync(temporary, file);
}

/**
 * Prints a benchmark's section, then writes it into docs/benchmarks.md unless `withheld` says why
 * not (profiling on: the figures are distorted) or `write` is off; says when targets are missed.
 */
export function publishSection(
  name: string,
  report: { readonly markdown: string; readonly checks: readonly { readonly met: boolean }[] },
  options: {
    readonly write: boolean;
    readonly withheld?: string | undefined;
    /** A new section goes after this one's (when the file has it), else at the end. */
    readonly after?: string;
  },
  progress: (message: string) => void,
): void {
  process.stdout.write(`\n${report.markdown}\n\n`);
  if (options.withheld !== undefined) {
    progress(`${options.withheld}; docs/benchmarks.md left as it was`);
  } else if (!options.write) {
    progress('--no-write: docs/benchmarks.md left as it was');
  } else {
    writeSection(name, report.markdown, BENCHMARKS_FILE, options.after);
    progress(`wrote the ${name} section of docs/benchmarks.md`);
  }
  if (report.checks.some((check) => !check.met)) progress('some targets are not met (see above)');
}

/** A GitHub-flavoured markdown table, padded as Biome formats markdown (so `biome check docs` stays clean). */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly ('l' | 'r')[] = [],
): string {
  const escapePipes = (cell: string) => cell.replace(/\|/g, '\\|');
  const body = [headers, ...rows].map((cells) => headers.map((_, index) => escapePipes(cells[index] ?? '')));
  const width = (text: string) => [...text].length;
  const widths = headers.map((_, index) => Math.max(3, ...body.map((cells) => width(cells[index] ?? ''))));
  const pad = (cell: string, index: number) => {
    const fill = ' '.repeat((widths[index] ?? 0) - width(cell));
    return align[index] === 'r' ? `${fill}${cell}` : `${cell}${fill}`;
  };
  const line = (cells: readonly string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = widths.map((size, index) =>
    align[index] === 'r' ? `${'-'.repeat(size - 1)}:` : '-'.repeat(size),
  );
  const [head = [], ...rest] = body;
  return [line(head), `| ${rule.join(' | ')} |`, ...rest.map(line)].join('\n');
}

/** A short description of where the figures come from. */
export function environmentLine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const memory = Math.round(os.totalmem() / 2 ** 30);
  return `${cpus.length} cores (${model}), ${memory} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** The command line that reproduces this run: `npm run …` when npm started it, and BENCH_* settings. */
export function commandLine(npmScript: string, script: string): string {
  const settings = Object.entries(process.env)
    .filter(([key, value]) => key.startsWith('BENCH_') && value !== undefined && value !== '')
    .map(
      ([key, value]) => `${key}=${shellQuote(key.endsWith('_URL') ? redactUrl(value ?? '') : (value ?? ''))}`,
    );
  const args = process.argv.slice(2).map(shellQuote);
  const command =
    process.env.npm_lifecycle_event === npmScript
      ? `npm run ${npmScript}${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`
      : `npx tsx ${script}${args.length > 0 ? ` ${args.join(' ')}` : ''}`;
  return [...settings, command].join(' ');
}

/** The URL with its password hidden, for reports. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** `1234.5` → `1,235`; small figures keep a decimal or two. */
export function formatNumber(value: number, decimals = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Milliseconds: whole as autocannon gives its percentiles, else to 0.1 ms. */
export function formatMs(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

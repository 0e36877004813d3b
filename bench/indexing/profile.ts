// Summarises V8 CPU profiles written by `bench/indexing/run.ts --cpu-prof DIR` (or any
// `node --cpu-prof`): where each thread spent its time, by package and by function, and the
// longest stretches during which it never went idle (what keeps an event loop from answering).
//
//   npx tsx bench/indexing/profile.ts FILE.cpuprofile [FILE…] [--top N] [--from S --to S]
//
// `--from`/`--to` keep only the samples between those seconds from the start of each profile.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    from: { type: 'string' },
    to: { type: 'string' },
  },
});
const top = Number(values.top);
const fromUs = values.from === undefined ? 0 : Number(values.from) * 1e6;
const toUs = values.to === undefined ? Number.POSITIVE_INFINITY : Number(values.to) * 1e6;

/** Where a frame's code comes from: a package, the service, Node itself, or V8's pseudo-frames. */
function categoryOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch?.[1] !== undefined) return packageMatch[1];
  if (url.startsWith('node:')) return 'node internals';
  const service = /\/dist\/src\/(.+)$/.exec(url);
  if (service?.[1] !== undefined) return `service: ${path.dirname(service[1])}`;
  return url.replace(/^file:\/\//, '');
}

function label(frame: CallFrame): string {
  const file =
    frame.url === ''
      ? ''
      : ` ${frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, '')}:${frame.lineNumber + 1}`;
  return `${frame.functionName || '(anonymous)'}${file}`;
}

function table(title: string, totals: Map<string, number>, totalUs: number): void {
  process.stdout.write(`  ${title}\n`);
  for (const [key, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(
      `    ${(us / 1e6).toFixed(2).padStart(7)} s ${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${key}\n`,
    );
  }
}

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const bySelf = new Map<string, number>();
  const byCategory = new Map<string, number>();
  /** Time under each service function (inclusive), the first service frame up the stack. */
  const byServiceCaller = new Map<string, number>();
  let elapsed = 0;
  let total = 0;
  let idle = 0;
  const stretches: { start: number; length: number; frames: Map<string, number> }[] = [];
  let current: { start: number; length: number; frames: Map<string, number> } | undefined;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsed += delta;
    if (elapsed < fromUs || elapsed > toUs) return;
    const node = byId.get(id);
    if (node === undefined) return;
    total += delta;
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') {
      idle += delta;
      if (current !== undefined) stretches.push(current);
      current = undefined;
      return;
    }
    current ??= { start: elapsed, length: 0, frames: new Map() };
    current.length += delta;
    const key = label(frame);
    current.frames.set(categoryOf(frame), (current.frames.get(categoryOf(frame)) ?? 0) + delta);
    bySelf.set(key, (bySelf.get(key) ?? 0) + delta);
    byCategory.set(categoryOf(frame), (byCategory.get(categoryOf(frame)) ?? 0) + delta);
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const ancestor = byId.get(at);
      if (ancestor !== undefined && /\/dist\/src\//.test(ancestor.callFrame.url)) {
        const callerKey = label(ancestor.callFrame);
        byServiceCaller.set(callerKey, (byServiceCaller.get(callerKey) ?? 0) + delta);
        break;
      }
    }
  });
  if (current !== undefined) stretches.push(current);
  process.stdout.write(
    `${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, ${(idle / 1e6).toFixed(1)} s idle, ${((total - idle) / 1e6).toFixed(1)} s busy\n`,
  );
  table('self time by package', byCategory, total);
  table('self time by function', bySelf, total);
  table('time under the innermost service function', byServiceCaller, total);
  process.stdout.write('  longest stretches without going idle (s from the start: length, top packages)\n');
  for (const stretch of [...stretches].sort((a, b) => b.length - a.length).slice(0, 10)) {
    const packages = [...stretch.frames]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([name, us]) => `${name} ${((us / stretch.length) * 100).toFixed(0)} %`)
      .join(', ');
    process.stdout.write(
      `    at ${(stretch.start / 1e6).toFixed(1).padStart(6)} s: ${(stretch.length / 1e3).toFixed(0).padStart(6)} ms  ${packages}\n`,
    );
  }
}

if (positionals.length === 0) {
  process.stderr.write(
    'usage: npx tsx bench/indexing/profile.ts FILE.cpuprofile [FILE…] [--top N] [--from S --to S]\n',
  );
  process.exit(2);
}
for (const file of positionals) summarise(file);

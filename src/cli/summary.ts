import type { IngestSummary } from './ingest.js';
import type { ItemOutcome } from './outcomes.js';
import { formatDuration } from './progress.js';

/** Problems listed by name in the text summary; `--json` carries more. */
const LISTED_EXAMPLES = 5;

/** The end-of-run report, for people. */
export function formatSummaryText(summary: IngestSummary): string {
  const lines: string[] = [];
  if (summary.aborted !== null) lines.push(`Stopped early: ${summary.aborted}`, '');
  lines.push(row('Indexed', summary.indexed));
  lines.push(row('Skipped', summary.skipped, summary.skipped_reasons));
  lines.push(
    ...examples(summary.skipped_examples, summary.skipped - (summary.skipped_reasons.unchanged ?? 0)),
  );
  lines.push(row('Failed', summary.failed, summary.failed_reasons));
  lines.push(...examples(summary.failures, summary.failed));
  if (summary.queued > 0) {
    const jobs = summary.jobs.length === 1 ? '1 job' : `${summary.jobs.length} jobs`;
    lines.push(`${'Queued'.padEnd(9)}${String(summary.queued).padStart(7)}  not waited for (${jobs})`);
  }
  const settled = summary.indexed + summary.skipped + summary.failed;
  const seconds = summary.elapsed_seconds;
  const rate = seconds > 0 ? ` (${(settled / seconds).toFixed(1)} docs/s)` : '';
  lines.push(`${'Elapsed'.padEnd(9)}${formatDuration(seconds * 1000).padStart(7)}${rate}`);
  return `${lines.join('\n')}\n`;
}

function row(label: string, count: number, reasons: Record<string, number> = {}): string {
  const detail = Object.entries(reasons)
    .sort(([, left], [, right]) => right - left)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return `${label.padEnd(9)}${String(count).padStart(7)}${detail === '' ? '' : `  ${detail}`}`;
}

function examples(outcomes: readonly ItemOutcome[], count: number): string[] {
  const lines = outcomes.slice(0, LISTED_EXAMPLES).map((outcome) => {
    const where =
      outcome.line === undefined
        ? (outcome.id ?? outcome.name)
        : `line ${outcome.line}${outcome.id === null ? '' : ` (${outcome.id})`}`;
    const why = [outcome.reason, outcome.message].filter((part) => part !== null && part !== '').join(': ');
    return `    ${where}: ${why}`;
  });
  const more = count - lines.length;
  if (lines.length > 0 && more > 0) lines.push(`    … and ${more} more`);
  return lines;
}

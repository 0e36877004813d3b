/** What the upload panel says about a batch of files and the service's refusals, in words for people. */

import type { StatusWord } from './status-words';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** A size as people read it: "32 MiB", "1.5 MiB", "700 KiB", "900 bytes". */
export function describeBytes(bytes: number): string {
  const scaled = (unit: number, name: string) => {
    const value = bytes / unit;
    const shown = Number.isInteger(value) || value >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
    return `${shown.toLocaleString('en')} ${name}`;
  };
  if (bytes >= GIB) return scaled(GIB, 'GiB');
  if (bytes >= MIB) return scaled(MIB, 'MiB');
  if (bytes >= KIB) return scaled(KIB, 'KiB');
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/**
 * Why a file was not uploaded because of its size. The service's own message names its setting
 * (UPLOAD_MAX_BYTES), which is for operators; people need the size.
 */
export function tooLargeWords(limitBytes: number | undefined): string {
  return limitBytes === undefined
    ? 'this file is larger than this server accepts'
    : `this file is larger than ${describeBytes(limitBytes)}, the largest this server accepts`;
}

/** Why a file of a type the service does not read was not uploaded (its 415). */
export const UNREADABLE_TYPE_WORDS =
  'this server does not read this type of file: upload PDF, Word (DOCX), Markdown, text, HTML, CSV, TSV or JSON';

/** Where a file of a batch is: before its job has it, or the job's word for it. */
export type FilePhase = 'waiting' | 'uploading' | StatusWord;

/** A file's place while it is not settled, in words ("waiting to upload"); settled: its status word. */
export function phaseWords(phase: FilePhase): string {
  if (phase === 'waiting') return 'waiting to upload';
  return phase;
}

/** The order a batch's counts are told in: the settled ones first, then what is still on its way. */
const PHASE_ORDER: readonly FilePhase[] = ['indexed', 'skipped', 'failed', 'pending', 'uploading', 'waiting'];

/** A batch in one line: "31 files: 30 indexed, 1 failed"; on its way: "31 files: 12 indexed, 19 pending". */
export function batchSummary(phases: readonly FilePhase[]): string {
  const counts = new Map<FilePhase, number>();
  for (const phase of phases) counts.set(phase, (counts.get(phase) ?? 0) + 1);
  const parts = PHASE_ORDER.filter((phase) => counts.has(phase)).map(
    (phase) => `${counts.get(phase)} ${phase}`,
  );
  const files = `${phases.length} ${phases.length === 1 ? 'file' : 'files'}`;
  return parts.length === 0 ? files : `${files}: ${parts.join(', ')}`;
}

/** Whether every file of a batch is settled (indexed, skipped or failed). */
export function batchDone(phases: readonly FilePhase[]): boolean {
  return phases.every((phase) => phase === 'indexed' || phase === 'skipped' || phase === 'failed');
}

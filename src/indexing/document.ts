/**
 * The shapes every indexing stage passes on: fetch -> parse -> chunk -> embed -> store.
 * Stages are pure where they can be, so each is testable alone.
 */

import { fileNameWords } from '../file-name-words.js';
import { identifierWords } from '../identifier-words.js';

/** A structural piece of a parsed document, in reading order. */
export type Block =
  | {
      readonly kind: 'heading';
      /** 1 for a title-level heading; slides and sheets are level-1 headings ("Slide 3", "Sheet Budget"). */
      readonly level: number;
      readonly text: string;
      /** 1-based page of a PDF, when known. */
      readonly page?: number;
    }
  | {
      /** A paragraph, list item, table row or code block: text that belongs together. */
      readonly kind: 'text';
      readonly text: string;
      readonly page?: number;
    };

export interface ParsedDocument {
  /**
   * The title the document gives itself, when it has one: PDF and DOCX metadata, HTML `<title>`,
   * Markdown front matter, else the first level-1 heading.
   */
  readonly title?: string;
  readonly blocks: readonly Block[];
  /**
   * The type the file was read as, when its label said nothing (`application/octet-stream`) or
   * less than its extension (text/plain on `notes.md`): to be stored in place of the label.
   */
  readonly mimeType?: string;
}

/** One stored, searchable piece of a document. */
export interface Chunk {
  /** 0-based order within the document. */
  readonly position: number;
  /** The chunk's own text (without the title or heading path). */
  readonly text: string;
  /** Headings above this chunk, outermost first. */
  readonly headingPath: readonly string[];
  /** PDF page numbers the chunk spans, as text ("3", "4"); empty when the format has none. */
  readonly pageLabels: readonly string[];
  /** Word-piece estimate used for sizing (whitespace-separated words). */
  readonly tokenCount: number;
}

/**
 * What is indexed and embedded for a chunk: the document's title and file name (`pino-api.md`
 * names its package and topic though its first heading is only "API") and the heading path give
 * it context, and the words of the identifiers they name (`msgPrefix`: "msg prefix") let a
 * question in words find the section about one. (Not those of its text: code repeats identifiers,
 * whose words would only make every code block match common words.)
 */
export function contextualText(
  title: string,
  chunk: Pick<Chunk, 'text' | 'headingPath'>,
  fileName: string | null = null,
): string {
  const heading = chunk.headingPath.filter((part) => part !== title).join(' > ');
  const { name, words } = contextWordsOf(title, heading, fileName);
  return [title, name, heading, chunk.text, words].filter((part) => part.trim() !== '').join('\n');
}

/** The last chunk's context words: a file's chunks come in order, most sharing the one before's heading. */
let lastContext: { title: string; heading: string; fileName: string | null; name: string; words: string } = {
  title: '',
  heading: '',
  fileName: null,
  name: '',
  words: '',
};

/**
 * The file name's words and the identifiers' words of the title and heading, made once per
 * heading rather than once per chunk: the scans of a 30 MiB file's 60k chunks ran on the main
 * thread in every statement's rows (a CPU profile of bench/indexing's big file on PostgreSQL).
 */
function contextWordsOf(
  title: string,
  heading: string,
  fileName: string | null,
): { name: string; words: string } {
  const last = lastContext;
  if (last.title === title && last.heading === heading && last.fileName === fileName) return last;
  lastContext = {
    title,
    heading,
    fileName,
    name: fileName === null ? '' : fileNameWords(fileName),
    words: identifierWords(`${title}\n${heading}`),
  };
  return lastContext;
}

/** Why one file was skipped or failed, as the job status reports it (the vocabulary). */
export type FileReason =
  | 'unsupported_type'
  | 'too_large'
  | 'permission_denied'
  | 'not_found'
  | 'parse_error'
  /** An archive (DOCX) built to mislead a reader: sizes that lie, overlapping entries, a bomb's ratio. */
  | 'unsafe_archive'
  /** Parsing took longer than `INDEX_PARSE_TIMEOUT_MS`; the thread was stopped. */
  | 'parse_timeout'
  | 'rate_limited'
  | 'unchanged'
  /** Nothing to index: no bytes, only whitespace, or a JSON document whose `text` is blank. */
  | 'empty'
  /** The source kept answering 5xx or timing out until the job's retries ran out. */
  | 'source_unavailable'
  /** A bug of ours; the message says what; logged with its stack. */
  | 'internal_error';

const SKIPPED_REASONS: ReadonlySet<FileReason> = new Set([
  'unsupported_type',
  'too_large',
  'unchanged',
  'empty',
]);

/** A file-level outcome that is final for this file: it does not fail its neighbours or retry. */
export class FileFailure extends Error {
  constructor(
    readonly reason: FileReason,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'FileFailure';
  }

  /** `skipped` for files we choose not to index; `failed` for files we could not. */
  get status(): 'skipped' | 'failed' {
    return SKIPPED_REASONS.has(this.reason) ? 'skipped' : 'failed';
  }
}

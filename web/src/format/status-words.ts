/** The words the app shows for the API's status and reason codes. */

export type StatusWord = 'indexed' | 'skipped' | 'failed' | 'pending';

/**
 * A document's or file's status as one of four words. Queued and indexing both mean "not settled
 * yet" to a reader, so both read `pending`; an unknown status too (a newer server's in-between).
 */
export function statusWord(status: string): StatusWord {
  if (status === 'indexed' || status === 'skipped' || status === 'failed') return status;
  return 'pending';
}

/** Why a file was skipped or failed (the server's FileReason codes), in words. */
const REASON_WORDS: Readonly<Record<string, string>> = {
  unsupported_type: 'this type of file cannot be read',
  too_large: 'the file is too large',
  permission_denied: 'the service was not allowed to read it',
  not_found: 'it was not found at its source',
  parse_error: 'its content could not be read',
  unsafe_archive: 'the file is built in an unsafe way and was not opened',
  parse_timeout: 'reading it took too long',
  rate_limited: 'its source refused too many requests; try again later',
  unchanged: 'unchanged since it was last indexed',
  empty: 'it holds no text',
  source_unavailable: 'its source was unavailable',
  internal_error: 'an error in the service',
};

/** A reason code in words; an unknown code is shown as it is, underscores as spaces. */
export function reasonWords(reason: string): string {
  return REASON_WORDS[reason] ?? reason.replaceAll('_', ' ');
}

/** An outcome: its status word and, when there is one, why. */
export function outcomeWords(status: string, reason: string | null, message?: string | null): string {
  const word = statusWord(status);
  if (reason !== null && reason !== '') return `${word}: ${reasonWords(reason)}`;
  if (word === 'failed' && message !== undefined && message !== null && message !== '') {
    return `${word}: ${message}`;
  }
  return word;
}

/** The filterable sources, by the name the API takes, with what a person calls them. */
export const SOURCES: readonly { value: string; label: string }[] = [
  { value: 'upload', label: 'Uploads' },
  { value: 'googledrive', label: 'Google Drive' },
  { value: 'wiki', label: 'Confluence' },
];

const SOURCE_NAMES: Readonly<Record<string, string>> = {
  upload: 'Upload',
  googledrive: 'Google Drive',
  wiki: 'Confluence',
};

export function sourceName(source: string): string {
  return SOURCE_NAMES[source] ?? source;
}

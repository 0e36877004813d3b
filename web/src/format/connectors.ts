import { ApiError, describeError } from '../api/http';
import type { IndexJob } from '../api/types';
import { WIKI_BODY_FIELDS, type WikiForm, type WikiFormField } from '../api/wiki';
import { formatDateTime } from './dates';
import { fieldErrors } from './field-errors';

/** What a person calls each kind of connector. */
const KIND_NAMES: Readonly<Record<string, string>> = {
  wiki: 'Confluence',
  googledrive: 'Google Drive',
  chatapp: 'Slack',
};

export function connectorKindName(slug: string): string {
  return KIND_NAMES[slug] ?? slug;
}

/** Drive's MIME types a person knows by another name. */
const DRIVE_KINDS: Readonly<Record<string, string>> = {
  'application/vnd.google-apps.folder': 'Folder',
  'application/vnd.google-apps.document': 'Google Doc',
  'application/vnd.google-apps.spreadsheet': 'Google Sheet',
  'application/vnd.google-apps.presentation': 'Google Slides',
  'application/pdf': 'PDF',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'text/markdown': 'Markdown',
  'text/plain': 'Text',
  'text/csv': 'CSV',
  'text/html': 'HTML',
};

/** What a Drive entry is, in a word or two; other types by their subtype ("json", "zip"). */
export function driveKindWords(mimeType: string): string {
  const known = DRIVE_KINDS[mimeType];
  if (known !== undefined) return known;
  if (mimeType.startsWith('application/vnd.google-apps.')) return 'Google file';
  const subtype = mimeType.split('/')[1]?.split(';')[0]?.trim();
  return subtype === undefined || subtype === '' ? 'File' : subtype.toUpperCase();
}

/** A connector's status in words: `configured` is saved but never synced. */
export function connectorStatusWords(status: string): string {
  if (status === 'configured') return 'connected, not synced yet';
  if (status === 'active') return 'active';
  return status.replaceAll('_', ' ');
}

/** When the connector last synced, or "never". */
export function lastSyncWords(lastSyncedAt: string | null): string {
  return lastSyncedAt === null ? 'never' : formatDateTime(lastSyncedAt);
}

function pages(count: number): string {
  return `${count} ${count === 1 ? 'page' : 'pages'}`;
}

export interface SyncProgress {
  /** Whether the job is done (completed or failed). */
  finished: boolean;
  failed: boolean;
  /**
   * For a live region: changes a few times a sync (waiting, listing, syncing, the summary at the
   * end), not at every page.
   */
  phase: string;
  /** The phase with the counts, shown beside the progress bar. */
  words: string;
  /** For a <progress>: undefined while the number of pages is not known yet (indeterminate). */
  value: number | undefined;
  max: number;
}

/** A sync job's state in words and numbers. */
export function syncProgress(job: IndexJob): SyncProgress {
  const { done, total, indexed, skipped, failed } = job.progress;
  const max = Math.max(total, 1);
  if (job.status === 'failed') {
    const why = job.error === null || job.error === '' ? 'the job stopped' : job.error;
    const words = `Sync failed: ${why}`;
    return { finished: true, failed: true, phase: words, words, value: done, max };
  }
  if (job.result_ready || job.status === 'completed') {
    const words =
      total === 0
        ? 'Sync finished: the space has no pages.'
        : `Sync finished: ${pages(total)}, ${indexed} indexed, ${skipped} skipped (unchanged), ${failed} failed.`;
    return { finished: true, failed: failed > 0, phase: words, words, value: max, max };
  }
  if (job.status === 'queued') {
    const phase = 'Sync waiting to start…';
    return { finished: false, failed: false, phase, words: phase, value: undefined, max };
  }
  if (total === 0) {
    const phase = 'Syncing: listing the space’s pages…';
    return { finished: false, failed: false, phase, words: phase, value: undefined, max };
  }
  return {
    finished: false,
    failed: false,
    phase: 'Syncing…',
    words: `Syncing: ${done} of ${pages(total)} done.`,
    value: done,
    max,
  };
}

export type WikiFormErrors = Partial<Record<WikiFormField, string>> & { form?: string };

const FORM_FIELDS = Object.keys(WIKI_BODY_FIELDS) as WikiFormField[];

/** Before asking the service: the fields it cannot do without, empty. */
export function missingWikiFields(form: WikiForm, connected: boolean): WikiFormErrors {
  const errors: WikiFormErrors = {};
  if (form.apiToken.trim() === '') {
    errors.apiToken = connected
      ? 'Enter the API token again to save: it is stored encrypted and never shown.'
      : 'Enter the API token.';
  }
  if (form.spaceKey.trim() === '') errors.spaceKey = 'Enter the key of the space to index.';
  return errors;
}

/**
 * A refused save as errors by field: a 422's problems at the fields they name (`wikiApiToken` is
 * the API token's…); anything else (rejected credentials, an unknown space, an unreachable wiki)
 * in the service's own words, for the whole form.
 */
export function wikiFormErrors(error: unknown): WikiFormErrors {
  if (!(error instanceof ApiError)) return { form: describeError(error) };
  if (error.status === 422 && error.issues.length > 0) {
    const bodyFields = FORM_FIELDS.map((field) => WIKI_BODY_FIELDS[field]);
    const { byField, other } = fieldErrors(error.issues, bodyFields);
    const errors: WikiFormErrors = {};
    for (const field of FORM_FIELDS) {
      const words = byField[WIKI_BODY_FIELDS[field]];
      if (words !== undefined) errors[field] = words;
    }
    if (other.length > 0) errors.form = other.join(' ');
    return errors;
  }
  return { form: error.detail };
}

/** The first field with an error, in the form's order (to move focus to). */
export function firstInvalidField(errors: WikiFormErrors): WikiFormField | undefined {
  return FORM_FIELDS.find((field) => errors[field] !== undefined);
}

import { describe, expect, it } from 'vitest';
import { ApiError, errorFromBody } from '../api/http';
import type { IndexJob } from '../api/types';
import {
  connectorKindName,
  connectorStatusWords,
  driveKindWords,
  firstInvalidField,
  lastSyncWords,
  missingWikiFields,
  syncProgress,
  wikiFormErrors,
} from './connectors';

function job(
  change: Omit<Partial<IndexJob>, 'progress'> & { progress?: Partial<IndexJob['progress']> },
): IndexJob {
  const { progress, ...rest } = change;
  return {
    result_id: 'job',
    result_ready: false,
    status: 'running',
    kind: 'wiki',
    error: null,
    files: [],
    ...rest,
    progress: { done: 0, total: 0, indexed: 0, skipped: 0, failed: 0, ...progress },
  };
}

describe('connector words', () => {
  it('names kinds and statuses as a person would', () => {
    expect(connectorKindName('wiki')).toBe('Confluence');
    expect(connectorKindName('googledrive')).toBe('Google Drive');
    expect(connectorKindName('chatapp')).toBe('Slack');
    expect(connectorKindName('notion')).toBe('notion');
    expect(connectorStatusWords('configured')).toBe('connected, not synced yet');
    expect(connectorStatusWords('active')).toBe('active');
    expect(connectorStatusWords('needs_reauth')).toBe('needs reauth');
  });

  it("names Drive entries by what they are, Google's own kinds included", () => {
    expect(driveKindWords('application/vnd.google-apps.folder')).toBe('Folder');
    expect(driveKindWords('application/vnd.google-apps.document')).toBe('Google Doc');
    expect(driveKindWords('application/vnd.google-apps.form')).toBe('Google file');
    expect(driveKindWords('application/pdf')).toBe('PDF');
    expect(driveKindWords('application/json; charset=utf-8')).toBe('JSON');
    expect(driveKindWords('weird')).toBe('File');
  });

  it('says "never" for a connector never synced, and the time otherwise', () => {
    expect(lastSyncWords(null)).toBe('never');
    const when = lastSyncWords('2026-03-04T05:06:07Z');
    expect(when).not.toBe('never');
    expect(when).toMatch(/2026/);
  });
});

describe('syncProgress', () => {
  it('is indeterminate while queued and while the space is listed', () => {
    expect(syncProgress(job({ status: 'queued' }))).toMatchObject({
      finished: false,
      value: undefined,
      phase: 'Sync waiting to start…',
    });
    expect(syncProgress(job({ status: 'running' }))).toMatchObject({ finished: false, value: undefined });
  });

  it('counts pages while it runs, with a phase that does not change at every page', () => {
    const running = syncProgress(job({ progress: { done: 2, total: 5, indexed: 2 } }));
    expect(running).toMatchObject({ finished: false, value: 2, max: 5, phase: 'Syncing…' });
    expect(running.words).toBe('Syncing: 2 of 5 pages done.');
  });

  it('sums up a finished sync, and a failed one with its error', () => {
    const done = syncProgress(
      job({
        status: 'completed',
        result_ready: true,
        progress: { done: 6, total: 6, indexed: 4, skipped: 1, failed: 1 },
      }),
    );
    expect(done).toMatchObject({ finished: true, failed: true, value: 6, max: 6 });
    expect(done.words).toBe('Sync finished: 6 pages, 4 indexed, 1 skipped (unchanged), 1 failed.');
    // The summary is announced once, at the end.
    expect(done.phase).toBe(done.words);
    const empty = syncProgress(job({ status: 'completed', result_ready: true }));
    expect(empty).toMatchObject({
      finished: true,
      failed: false,
      words: 'Sync finished: the space has no pages.',
    });
    const failed = syncProgress(
      job({ status: 'failed', result_ready: true, error: 'The wiki did not answer' }),
    );
    expect(failed).toMatchObject({
      finished: true,
      failed: true,
      phase: 'Sync failed: The wiki did not answer',
    });
    expect(failed.words).toBe('Sync failed: The wiki did not answer');
  });
});

describe('the Confluence form', () => {
  it('asks for the token and the space key before asking the service', () => {
    const empty = { site: '', email: '', apiToken: ' ', spaceKey: '' };
    const errors = missingWikiFields(empty, false);
    expect(errors).toEqual({
      apiToken: 'Enter the API token.',
      spaceKey: 'Enter the key of the space to index.',
    });
    expect(firstInvalidField(errors)).toBe('apiToken');
    // Connected: the saved token is never shown, so saving needs it typed again.
    expect(missingWikiFields({ ...empty, spaceKey: 'ENG' }, true).apiToken).toMatch(/again/);
    expect(missingWikiFields({ site: '', email: '', apiToken: 't', spaceKey: 'ENG' }, false)).toEqual({});
  });

  it("shows a refusal in the service's own words, for the whole form", () => {
    const rejected = errorFromBody(400, {
      detail: 'Wiki credentials rejected: the wiki at https://acme.atlassian.net/wiki answered 401.',
    });
    expect(wikiFormErrors(rejected)).toEqual({
      form: 'Wiki credentials rejected: the wiki at https://acme.atlassian.net/wiki answered 401.',
    });
    expect(wikiFormErrors(errorFromBody(502, { detail: 'The wiki did not answer: timed out' }))).toEqual({
      form: 'The wiki did not answer: timed out',
    });
    expect(wikiFormErrors(new Error('boom'))).toEqual({ form: 'boom' });
  });

  it("puts a 422's problems under the fields they name, the rest above the form", () => {
    const error = errorFromBody(422, {
      detail: [
        { loc: ['body', 'wikiBaseUrl'], msg: 'Input should be a valid URL', type: 'url_parsing' },
        { loc: ['body', 'wikiSpaceKey'], msg: 'Field required', type: 'missing' },
        {
          loc: ['body', 'wikiApiToken'],
          msg: 'String should have at most 8192 characters',
          type: 'string_too_long',
        },
        { loc: ['query', 'x'], msg: 'Something else', type: 'value_error' },
      ],
    });
    expect(error).toBeInstanceOf(ApiError);
    const errors = wikiFormErrors(error);
    expect(errors).toEqual({
      site: 'Input should be a valid URL',
      spaceKey: 'This field is required.',
      apiToken: 'String should have at most 8192 characters',
      form: 'Something else',
    });
    expect(firstInvalidField(errors)).toBe('site');
  });
});

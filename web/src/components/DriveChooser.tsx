import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { browseDrive, type DriveEntry, indexDriveFiles } from '../api/drive';
import { ApiError, describeError, isAbort } from '../api/http';
import type { QueuedJob } from '../api/types';
import { driveKindWords } from '../format/connectors';

interface Folder {
  id: string;
  name: string;
}

const MY_DRIVE: Folder = { id: 'root', name: 'My Drive' };

interface DriveChooserProps {
  /** The person's Google access token: in this page's memory only, sent to the service alone. */
  accessToken: string;
  /** Google no longer takes the token (expired, revoked): connect again. */
  onTokenRejected: (message: string) => void;
  onQueued: (job: QueuedJob) => void;
}

/**
 * Folders and files of the person's Drive, browsed through the service: open a folder, go back up
 * by the trail, tick files or whole folders (everything inside is indexed), then "Index selected".
 * The ticks stay while browsing elsewhere.
 */
export function DriveChooser({ accessToken, onTokenRejected, onQueued }: DriveChooserProps) {
  const [trail, setTrail] = useState<Folder[]>([MY_DRIVE]);
  const [entries, setEntries] = useState<DriveEntry[]>([]);
  const [nextPage, setNextPage] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<ReadonlyMap<string, DriveEntry>>(new Map());
  const [queueing, setQueueing] = useState(false);
  const listRef = useRef<HTMLUListElement>(null);
  const moveFocus = useRef(false);
  const headingId = useId();
  const folder = trail[trail.length - 1] ?? MY_DRIVE;

  const failed = useCallback(
    (failure: unknown) => {
      // 400 from the browse endpoint: Google did not take the token (the service's words say so).
      if (failure instanceof ApiError && failure.status === 400) onTokenRejected(failure.detail);
      else setError(describeError(failure));
    },
    [onTokenRejected],
  );

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(undefined);
    browseDrive(accessToken, folder.id, undefined, controller.signal).then(
      (page) => {
        setEntries(page.files);
        setNextPage(page.next_page_token);
        setLoading(false);
      },
      (failure: unknown) => {
        if (isAbort(failure)) return;
        setLoading(false);
        failed(failure);
      },
    );
    return () => controller.abort();
  }, [accessToken, folder.id, failed]);

  useEffect(() => {
    // After opening a folder (or going up) by keyboard, the list is where the person continues.
    if (!loading && moveFocus.current) {
      moveFocus.current = false;
      listRef.current?.focus();
    }
  }, [loading]);

  async function loadMore() {
    if (nextPage === null) return;
    setLoading(true);
    try {
      const page = await browseDrive(accessToken, folder.id, nextPage);
      setEntries((shown) => [...shown, ...page.files]);
      setNextPage(page.next_page_token);
    } catch (failure) {
      failed(failure);
    } finally {
      setLoading(false);
    }
  }

  function open(entry: DriveEntry) {
    moveFocus.current = true;
    setTrail((current) => [...current, { id: entry.id, name: entry.name }]);
  }

  function goUpTo(index: number) {
    moveFocus.current = true;
    setTrail((current) => current.slice(0, index + 1));
  }

  function toggle(entry: DriveEntry, checked: boolean) {
    setSelected((current) => {
      const next = new Map(current);
      if (checked) next.set(entry.id, entry);
      else next.delete(entry.id);
      return next;
    });
  }

  async function indexSelected() {
    setQueueing(true);
    setError(undefined);
    try {
      const job = await indexDriveFiles(accessToken, [...selected.values()]);
      setSelected(new Map());
      onQueued(job);
    } catch (failure) {
      setError(`Indexing could not start: ${describeError(failure)}`);
    } finally {
      setQueueing(false);
    }
  }

  return (
    <section className="drive-chooser" aria-labelledby={headingId}>
      <h3 id={headingId}>Choose from Google Drive</h3>
      <nav aria-label="Drive folders">
        <ol className="breadcrumbs">
          {trail.map((step, index) =>
            index === trail.length - 1 ? (
              <li key={step.id} aria-current="location">
                {step.name}
              </li>
            ) : (
              <li key={step.id}>
                <button type="button" className="link-button" onClick={() => goUpTo(index)}>
                  {step.name}
                </button>
              </li>
            ),
          )}
        </ol>
      </nav>
      <ul
        ref={listRef}
        tabIndex={-1}
        className="drive-entries"
        aria-label={`In ${folder.name}`}
        aria-busy={loading}
      >
        {entries.map((entry) => (
          <li key={entry.id} className="drive-entry">
            <input
              type="checkbox"
              id={`drive-entry-${entry.id}`}
              checked={selected.has(entry.id)}
              onChange={(event) => toggle(entry, event.target.checked)}
            />
            <label htmlFor={`drive-entry-${entry.id}`} className="drive-entry-name">
              {entry.name}
            </label>
            <span className="muted drive-entry-kind">{driveKindWords(entry.mime_type)}</span>
            {entry.is_folder ? (
              <button
                type="button"
                className="button-secondary"
                aria-label={`Open ${entry.name}`}
                onClick={() => open(entry)}
              >
                Open
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {loading ? (
        <p role="status" className="muted">
          Loading {folder.name}…
        </p>
      ) : entries.length === 0 && error === undefined ? (
        <p className="muted">This folder is empty.</p>
      ) : null}
      {nextPage !== null && !loading ? (
        <button type="button" className="button-secondary" onClick={loadMore}>
          Load more
        </button>
      ) : null}
      {error === undefined ? null : (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      <div className="drive-actions">
        <button
          type="button"
          className="button-primary"
          disabled={selected.size === 0 || queueing}
          onClick={indexSelected}
        >
          Index selected
        </button>
        <p role="status" className="form-state">
          {selected.size === 0
            ? 'Nothing selected: tick files or folders (a folder brings everything in it).'
            : `${selected.size} selected`}
        </p>
      </div>
    </section>
  );
}

import { useEffect } from 'react';
import { getDocument } from '../api/documents';
import { ApiError } from '../api/http';
import { BreakableName } from '../components/BreakableName';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { PassageText } from '../components/PassageText';
import { accessWords } from '../format/access-words';
import { formatDateTime } from '../format/dates';
import { fileNameBesideTitle } from '../format/file-name';
import { outcomeWords, sourceName, statusWord } from '../format/status-words';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { useLoader } from '../hooks/useLoader';
import { isWebUrl } from '../markdown/safe-url';

/**
 * One document (its title, and the file it came from when that says more), who can open it, and its
 * stored passages, their code blocks as code: where a citation without a web URL leads.
 * The passage in `?passage=<chunk_id>` is highlighted and scrolled into view. `viewerEmail`, the
 * signed-in member's, is "you" in who can open it.
 */
export function DocumentPage({
  documentId,
  passage,
  viewerEmail,
}: {
  documentId: string;
  passage: number | undefined;
  viewerEmail: string;
}) {
  const loaded = useLoader(documentId, (signal) => getDocument(documentId, signal));
  const document = loaded.state === 'loaded' ? loaded.value.document : undefined;
  const chunks = loaded.state === 'loaded' ? loaded.value.chunks : [];
  useDocumentTitle(document?.title ?? 'Document');
  const passageFound = chunks.some((chunk) => chunk.chunk_id === passage);
  const fileName =
    document === undefined ? undefined : fileNameBesideTitle(document.title, document.file_name);

  // Once the passages are there, the cited one is brought into view and focused (a screen reader reads it).
  useEffect(() => {
    if (!passageFound || passage === undefined) return;
    const element = window.document.getElementById(`passage-${passage}`);
    element?.scrollIntoView({ block: 'center' });
    element?.focus({ preventScroll: true });
  }, [passageFound, passage]);

  const notFound =
    loaded.state === 'failed' && loaded.error instanceof ApiError && loaded.error.status === 404;
  return (
    <>
      <h1>{document?.title ?? 'Document'}</h1>
      {fileName === undefined ? null : (
        <p className="document-page-file-name">
          <span className="visually-hidden">File: </span>
          <span className="title-file-name">
            <BreakableName text={fileName} />
          </span>
        </p>
      )}
      {loaded.state === 'loading' ? <Loading label="Loading the document…" /> : null}
      {loaded.state === 'failed' ? (
        <ErrorAlert message={notFound ? 'This document does not exist (any more).' : loaded.message} />
      ) : null}
      {document === undefined ? null : (
        <>
          <dl className="document-facts">
            <div>
              <dt>Source</dt>
              <dd>{sourceName(document.source)}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <span className={`status status-${statusWord(document.status)}`}>
                  {statusWord(document.status)}
                </span>
              </dd>
            </div>
            <div>
              <dt>Chunks</dt>
              <dd>{document.chunks}</dd>
            </div>
            {document.access === undefined ? null : (
              <div>
                <dt>Who can open</dt>
                {/* Everyone named here: the page has room for the list the table shortens. */}
                <dd>{accessWords(document.access, viewerEmail, Number.POSITIVE_INFINITY)}</dd>
              </div>
            )}
            {document.last_job === null ? null : (
              <div>
                <dt>Last outcome</dt>
                <dd>
                  {outcomeWords(
                    document.last_job.status,
                    document.last_job.reason,
                    document.last_job.message,
                  )}
                  {document.last_job.at === null ? '' : `, ${formatDateTime(document.last_job.at)}`}
                </dd>
              </div>
            )}
            {isWebUrl(document.url) ? (
              <div>
                <dt>Original</dt>
                <dd>
                  <a href={document.url} target="_blank" rel="noopener noreferrer">
                    {document.url}
                  </a>
                </dd>
              </div>
            ) : null}
          </dl>
          {passage !== undefined && !passageFound ? (
            <p className="muted">The cited passage is no longer in this document; it has changed since.</p>
          ) : null}
          <h2>Passages</h2>
          {chunks.length === 0 ? (
            <p className="muted">No passages are stored for this document.</p>
          ) : (
            <ol className="passages">
              {chunks.map((chunk) => {
                const cited = chunk.chunk_id === passage;
                return (
                  <li
                    key={chunk.chunk_id}
                    id={`passage-${chunk.chunk_id}`}
                    className={cited ? 'passage passage-cited' : 'passage'}
                    tabIndex={cited ? -1 : undefined}
                  >
                    {chunk.heading_path.length === 0 ? null : (
                      <p className="heading-path">{chunk.heading_path.join(' › ')}</p>
                    )}
                    {cited ? <p className="visually-hidden">Cited passage:</p> : null}
                    <PassageText text={chunk.text} cited={cited} />
                  </li>
                );
              })}
            </ol>
          )}
        </>
      )}
    </>
  );
}

import { useState } from 'react';
import type { DocumentSummary } from '../api/types';
import { accessWords } from '../format/access-words';
import { formatDateTime } from '../format/dates';
import { outcomeWords, sourceName, statusWord } from '../format/status-words';
import { focusPageHeading } from '../hooks/focus';
import { Link } from '../router/Link';
import { documentPath } from '../router/routes';
import { ConfirmDialog } from './ConfirmDialog';

interface DocumentsTableProps {
  documents: DocumentSummary[];
  caption: string;
  /** The signed-in member's e-mail: "you" in who can open a document. */
  viewerEmail: string;
  onDelete: (document: DocumentSummary) => Promise<void>;
}

/**
 * The team's documents: title, source, status word, chunks, last outcome in words, who can open it,
 * and delete.
 */
export function DocumentsTable({ documents, caption, viewerEmail, onDelete }: DocumentsTableProps) {
  const [deleting, setDeleting] = useState<DocumentSummary | undefined>(undefined);
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a phone; a keyboard must reach it to scroll it */}
      <section className="table-scroll" aria-labelledby="documents-caption" tabIndex={0}>
        <table className="documents-table">
          <caption id="documents-caption">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <th scope="col">Chunks</th>
              <th scope="col">Last outcome</th>
              <th scope="col">Who can open</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {documents.map((document) => {
              const word = statusWord(document.status);
              return (
                <tr key={document.id}>
                  <th scope="row" className="document-title">
                    <Link to={documentPath(document.id)}>{document.title || document.external_id}</Link>
                  </th>
                  <td>{sourceName(document.source)}</td>
                  <td>
                    <span className={`status status-${word}`}>{word}</span>
                  </td>
                  <td className="number">{document.chunks}</td>
                  <td>
                    {document.last_job === null ? (
                      <span className="muted">none yet</span>
                    ) : (
                      <>
                        {outcomeWords(
                          document.last_job.status,
                          document.last_job.reason,
                          document.last_job.message,
                        )}
                        {document.last_job.at === null ? null : (
                          <>
                            {' '}
                            <time className="muted" dateTime={document.last_job.at}>
                              {formatDateTime(document.last_job.at)}
                            </time>
                          </>
                        )}
                      </>
                    )}
                  </td>
                  <td className="document-access">
                    {document.access === undefined ? (
                      <span className="muted">not known</span>
                    ) : (
                      accessWords(document.access, viewerEmail)
                    )}
                  </td>
                  <td>
                    <button type="button" className="button-quiet" onClick={() => setDeleting(document)}>
                      Delete<span className="visually-hidden"> {document.title || document.external_id}</span>
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      {deleting === undefined ? null : (
        <ConfirmDialog
          title="Delete this document?"
          message={`“${deleting.title || deleting.external_id}” and its passages will be deleted: answers will no longer cite it.`}
          confirmLabel="Delete"
          onConfirm={() => onDelete(deleting)}
          onClose={(confirmed) => {
            setDeleting(undefined);
            if (confirmed) window.setTimeout(focusPageHeading);
          }}
        />
      )}
    </>
  );
}

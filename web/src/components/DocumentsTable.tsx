import { useState } from 'react';
import type { DocumentSummary } from '../api/types';
import { accessWords } from '../format/access-words';
import { formatDateTime } from '../format/dates';
import { fileNameBesideTitle } from '../format/file-name';
import { outcomeWords, sourceName, statusWord } from '../format/status-words';
import { focusPageHeading } from '../hooks/focus';
import { Link } from '../router/Link';
import { documentPath } from '../router/routes';
import { BreakableName } from './BreakableName';
import { ConfirmDialog } from './ConfirmDialog';

interface DocumentsTableProps {
  documents: DocumentSummary[];
  caption: string;
  /** The signed-in member's e-mail: "you" in who can open a document. */
  viewerEmail: string;
  onDelete: (document: DocumentSummary) => Promise<void>;
}

function titleOf(document: DocumentSummary): string {
  return document.title || document.external_id;
}

/** The file name, when it says more than the title (two files both titled "Café menu", "API" from pino-api.md). */
function distinctFileName(document: DocumentSummary): string | undefined {
  return fileNameBesideTitle(titleOf(document), document.file_name);
}

/** ` (pino-api.md)` after a title that does not say which file it is. */
function fileNameAside(document: DocumentSummary): string {
  const fileName = distinctFileName(document);
  return fileName === undefined ? '' : ` (${fileName})`;
}

/**
 * The team's documents: title (and file name), source, status word, chunks, last outcome in words,
 * who can open it, and Delete where the caller may delete it. A table; on a narrow screen the
 * styles lay each row out as a card, its cells labelled by `data-label` (the table's semantics stay).
 */
export function DocumentsTable({ documents, caption, viewerEmail, onDelete }: DocumentsTableProps) {
  const [deleting, setDeleting] = useState<DocumentSummary | undefined>(undefined);
  const anyDeletable = documents.some((document) => document.can_delete);
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a narrow desktop window; a keyboard must reach it to scroll it */}
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
              {anyDeletable ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {documents.map((document) => {
              const word = statusWord(document.status);
              const fileName = distinctFileName(document);
              return (
                <tr key={document.id}>
                  <th scope="row" className="document-title">
                    <Link to={documentPath(document.id)}>
                      <BreakableName text={titleOf(document)} />
                    </Link>
                    {fileName === undefined ? null : (
                      <span className="document-file-name">
                        <BreakableName text={fileName} />
                      </span>
                    )}
                  </th>
                  <td data-label="Source">{sourceName(document.source)}</td>
                  <td data-label="Status">
                    <span className={`status status-${word}`}>{word}</span>
                  </td>
                  <td data-label="Chunks" className="number">
                    {document.chunks}
                  </td>
                  <td data-label="Last outcome">
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
                  <td data-label="Who can open" className="document-access">
                    {document.access === undefined ? (
                      <span className="muted">not known</span>
                    ) : (
                      accessWords(document.access, viewerEmail)
                    )}
                  </td>
                  {anyDeletable ? (
                    <td className="document-actions">
                      {document.can_delete ? (
                        <button type="button" className="button-quiet" onClick={() => setDeleting(document)}>
                          Delete<span className="visually-hidden"> {titleOf(document)}</span>
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      {deleting === undefined ? null : (
        <ConfirmDialog
          title="Delete this document?"
          message={`“${titleOf(deleting)}”${fileNameAside(deleting)} and its passages will be deleted: answers will no longer cite it.`}
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

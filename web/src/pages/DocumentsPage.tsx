import { useCallback, useDeferredValue, useState } from 'react';
import { DOCUMENTS_PAGE_SIZE, deleteDocument, listDocuments } from '../api/documents';
import { DocumentSearch } from '../components/DocumentSearch';
import { DocumentsTable } from '../components/DocumentsTable';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { Pager } from '../components/Pager';
import { UnprovenAddressNotice } from '../components/UnprovenAddressNotice';
import { UploadPanel } from '../components/UploadPanel';
import { SOURCES, sourceName } from '../format/status-words';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';

/**
 * The team's documents: upload, search, and the list by source, a page at a time. `viewerEmail`, the
 * signed-in member's, is "you" in who can open each; while it is not proven (`viewerEmailVerified`
 * false) the page says why documents shared with it are missing.
 */
export function DocumentsPage({
  viewerEmail,
  viewerEmailVerified,
}: {
  viewerEmail: string;
  viewerEmailVerified: boolean;
}) {
  useDocumentTitle('Documents');
  const [source, setSource] = useState('');
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  const loaded = useLoader(`${source}|${offset}|${version}`, (signal) =>
    listDocuments({ source, offset, signal }),
  );
  // The 50 rows are rendered in the background, in slices that leave the main thread free between
  // them, instead of in one long task the moment the list arrives (the page's heaviest render).
  const page = useDeferredValue(shownValue(loaded));

  async function remove(documentId: number) {
    await deleteDocument(documentId);
    reload();
  }

  // The filter's own words ("Uploads"), as the person chose them in the select.
  const filterName =
    source === ''
      ? undefined
      : (SOURCES.find((option) => option.value === source)?.label ?? sourceName(source));
  const first = offset + 1;
  const last = page === undefined ? 0 : offset + page.documents.length;

  return (
    <>
      <h1>Documents</h1>
      <section className="panel">
        <h2>Add documents</h2>
        <UploadPanel onSettled={reload} />
      </section>
      <section className="panel">
        <h2>Search</h2>
        <DocumentSearch />
      </section>
      <section className="panel">
        <h2>All documents</h2>
        {viewerEmailVerified ? null : <UnprovenAddressNotice email={viewerEmail} />}
        <div className="field field-inline">
          <label htmlFor="source-filter">Source</label>
          <select
            id="source-filter"
            value={source}
            onChange={(event) => {
              setSource(event.target.value);
              setOffset(0);
            }}
          >
            <option value="">All sources</option>
            {SOURCES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        {loaded.state === 'failed' ? (
          <ErrorAlert message={loaded.message}>
            <button type="button" className="button-secondary" onClick={reload}>
              Try again
            </button>
          </ErrorAlert>
        ) : null}
        {loaded.state !== 'failed' && page === undefined ? <Loading label="Loading the documents…" /> : null}
        {page === undefined ? null : page.documents.length === 0 ? (
          <p className="muted">
            {filterName === undefined
              ? 'No documents yet: upload files above, and they are listed here.'
              : `No documents from ${filterName}.`}
          </p>
        ) : (
          <>
            <DocumentsTable
              documents={page.documents}
              caption={`${filterName === undefined ? 'Documents' : `${filterName}: documents`} ${first}–${last} of ${page.total}`}
              viewerEmail={viewerEmail}
              onDelete={(document) => remove(document.id)}
            />
            {page.total > DOCUMENTS_PAGE_SIZE ? (
              <Pager
                offset={offset}
                pageSize={DOCUMENTS_PAGE_SIZE}
                hasNext={last < page.total}
                previousLabel="Previous page"
                nextLabel="Next page"
                onOffsetChange={setOffset}
              />
            ) : null}
          </>
        )}
      </section>
    </>
  );
}

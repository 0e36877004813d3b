import { type FormEvent, useRef, useState } from 'react';
import { describeError, isAbort } from '../api/http';
import { searchPassages } from '../api/search';
import type { SearchResult } from '../api/types';
import { fileNameBesideTitle } from '../format/file-name';
import { queryTerms } from '../format/highlight';
import { sourceName } from '../format/status-words';
import { Link } from '../router/Link';
import { documentPath } from '../router/routes';
import { BreakableName } from './BreakableName';
import { ErrorAlert, Loading } from './ErrorAlert';
import { PassageText } from './PassageText';

type SearchState =
  | { state: 'idle' }
  | { state: 'searching'; query: string }
  | { state: 'failed'; message: string }
  | { state: 'found'; query: string; results: SearchResult[] };

/**
 * Ranked passages of the team's documents for a query, its words marked (in code too); each opens its
 * document there. A passage's code blocks show as code, a long one by its first lines.
 */
export function DocumentSearch() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<SearchState>({ state: 'idle' });
  const running = useRef<AbortController | undefined>(undefined);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = query.trim();
    if (text === '') return;
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setSearch({ state: 'searching', query: text });
    try {
      setSearch({ state: 'found', query: text, results: await searchPassages(text, controller.signal) });
    } catch (error) {
      if (!isAbort(error)) setSearch({ state: 'failed', message: describeError(error) });
    }
  }

  return (
    <div className="document-search">
      <search>
        <form className="search-form" onSubmit={submit}>
          <label htmlFor="document-search">Search documents</label>
          <div className="search-row">
            <input
              id="document-search"
              type="search"
              value={query}
              maxLength={4000}
              onChange={(event) => setQuery(event.target.value)}
            />
            <button type="submit" className="button-primary">
              Search
            </button>
          </div>
        </form>
      </search>
      {search.state === 'searching' ? <Loading label="Searching…" /> : null}
      {search.state === 'failed' ? <ErrorAlert message={search.message} /> : null}
      {search.state === 'found' ? <SearchResults query={search.query} results={search.results} /> : null}
    </div>
  );
}

function SearchResults({ query, results }: { query: string; results: SearchResult[] }) {
  if (results.length === 0) {
    return (
      <p role="status" className="muted">
        No passage matches “{query}”.
      </p>
    );
  }
  const terms = queryTerms(query);
  return (
    <>
      <p role="status" className="muted">
        {results.length === 1 ? '1 passage' : `${results.length} passages`} for “{query}”, best first.
      </p>
      <ol className="search-results" aria-label="Search results">
        {results.map((result) => {
          const fileName = fileNameBesideTitle(result.title, result.file_name);
          return (
            <li key={result.chunk_id} className="search-result">
              <div className="search-result-heading">
                <Link to={documentPath(result.document_id, result.chunk_id)}>{result.title}</Link>
                <span className="muted">
                  {fileName === undefined ? null : (
                    <>
                      {' · '}
                      <span className="title-file-name">
                        <BreakableName text={fileName} />
                      </span>
                    </>
                  )}
                  {' · '}
                  {sourceName(result.source)}
                </span>
              </div>
              <PassageText text={result.text} terms={terms} shortenCode />
            </li>
          );
        })}
      </ol>
    </>
  );
}

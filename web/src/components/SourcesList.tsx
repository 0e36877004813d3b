import type { CitedSource } from '../api/types';
import { fileNameBesideTitle } from '../format/file-name';
import { sourceTarget } from '../markdown/source-target';
import { Link } from '../router/Link';

/**
 * The documents an answer cites, numbered as the answer cites them; each a link named by its title
 * (its web page in a new tab, else its page in the app), its file name when the title does not say
 * it, its cited passage under it.
 */
export function SourcesList({ sources, label }: { sources: readonly CitedSource[]; label: string }) {
  if (sources.length === 0) return null;
  return (
    <ol aria-label={label} className="sources">
      {sources.map((source) => {
        const target = sourceTarget(source);
        const fileName = fileNameBesideTitle(source.title, source.file_name);
        return (
          <li key={source.citation} value={source.citation}>
            {target?.kind === 'web' ? (
              <a href={target.href} target="_blank" rel="noopener noreferrer">
                {source.title}
              </a>
            ) : target?.kind === 'app' ? (
              <Link to={target.href}>{source.title}</Link>
            ) : (
              <span>{source.title}</span>
            )}
            {fileName === undefined ? null : <span className="muted source-file-name"> {fileName}</span>}
            {source.snippet === '' ? null : <p className="source-snippet">{source.snippet}</p>}
          </li>
        );
      })}
    </ol>
  );
}

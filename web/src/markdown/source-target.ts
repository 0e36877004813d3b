import type { CitedSource } from '../api/types';
import { documentPath } from '../router/routes';
import { isWebUrl } from './safe-url';

/** Where a cited source opens: its own web address in a new tab, or its page in the app. */
export type SourceTarget = { kind: 'web'; href: string } | { kind: 'app'; href: string };

/**
 * A source with an http(s) URL opens there; otherwise (an upload, a URL of another scheme) the
 * document's page in the app shows its text, the cited passage highlighted when the source names
 * it (answers saved before `chunk_id` was kept open the page alone). Undefined when neither is known.
 */
export function sourceTarget(
  source: Pick<CitedSource, 'url' | 'document_id' | 'chunk_id'>,
): SourceTarget | undefined {
  if (isWebUrl(source.url)) return { kind: 'web', href: source.url.trim() };
  if (typeof source.document_id === 'number') {
    const passage = typeof source.chunk_id === 'number' ? source.chunk_id : undefined;
    return { kind: 'app', href: documentPath(source.document_id, passage) };
  }
  return undefined;
}

import { Type } from 'typebox';
import type { DocumentSource } from '../../services/search-documents.js';

/**
 * Source names as clients spell them (the connector slugs' aliases too), by the source they mean,
 * as documents and results name it. One list for every filter: `POST /v1/search`, `GET /v1/documents`.
 */
export const SOURCE_ALIASES: Readonly<Record<string, DocumentSource>> = {
  googledrive: 'googledrive',
  google_drive: 'googledrive',
  drive: 'googledrive',
  wiki: 'wiki',
  confluence: 'wiki',
  upload: 'upload',
  uploads: 'upload',
};

/**
 * One source name: any other is a 422 (`enum`, naming the names allowed) wherever it is used. An
 * `enum` rather than a union of literals, so that the 422 lists the names and /docs offers them.
 */
export const SourceName = Type.Unsafe<string>({
  type: 'string',
  enum: Object.keys(SOURCE_ALIASES),
  description: 'googledrive (or drive, google_drive), wiki (or confluence), upload (or uploads)',
});

/** A list of source names. */
export const SourceNames = Type.Array(SourceName, { maxItems: 10 });

/** The source a valid name means. */
export function canonicalSource(name: string): DocumentSource {
  const source = SOURCE_ALIASES[name];
  // Unreachable past the schema, which admits only these names.
  if (source === undefined) throw new Error(`Unknown source name: ${name}`);
  return source;
}

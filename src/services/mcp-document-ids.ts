/**
 * The ids MCP clients pass between `search` and `fetch`: `<document_id>:<chunk_id>` for a passage,
 * or a bare `<document_id>`, and the web app's page a passage is read on.
 */

/** A search result's id: its document and the passage in it. */
export function passageIdOf(documentId: number, chunkId: number): string {
  return `${documentId}:${chunkId}`;
}

/** The document (as getDocument reads its id) and passage an id names; undefined when it names none. */
export function parseMcpDocumentId(id: string): { documentId: string; chunkId?: number } | undefined {
  const match = /^\s*(\d{1,15})(?::(\d{1,15}))?\s*$/.exec(id);
  if (match === null || match[1] === undefined) return undefined;
  return match[2] === undefined
    ? { documentId: match[1] }
    : { documentId: match[1], chunkId: Number(match[2]) };
}

/**
 * Where a person opens a result: the source's own link when it has one, else the web app's page
 * of the document (`publicUrl`, PUBLIC_URL), the passage highlighted when one is named.
 */
export function documentLink(
  publicUrl: string,
  document: { readonly documentId: number; readonly url: string | null },
  chunkId?: number,
): string {
  if (document.url !== null && document.url !== '') return document.url;
  const page = `${publicUrl}/documents/${document.documentId}`;
  return chunkId === undefined ? page : `${page}?passage=${chunkId}`;
}

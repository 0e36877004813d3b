/** The app's pages, by path. The server answers index.html for these paths (its SPA fallback). */
export type Route =
  | { page: 'ask' }
  | { page: 'chat'; chatId: string }
  | { page: 'documents' }
  | { page: 'document'; documentId: string }
  | { page: 'jobs' }
  | { page: 'members' }
  /** The caller's personal access tokens (for scripts and the CLI). */
  | { page: 'tokens' }
  /** An invitation's link (`/join?invitation=<code>`): open signed out too. */
  | { page: 'join' }
  /** An MCP client's authorization request (`/authorize?client_id=…`, from GET /oauth/authorize): Allow or Deny. */
  | { page: 'authorize' }
  /** With `callback`: a provider's OAuth redirect back (`/connectors/{provider}/callback`). */
  | { page: 'connectors'; callback?: 'google-drive' | 'slack' }
  | { page: 'not-found' };

function decodeSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded === '' ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/** The page a path shows; a trailing slash is forgiven. */
export function matchRoute(pathname: string): Route {
  const segments = pathname.split('/').filter((segment) => segment !== '');
  const [first, second, ...rest] = segments;
  if (first === undefined) return { page: 'ask' };
  if (
    first === 'connectors' &&
    (second === 'google-drive' || second === 'slack') &&
    rest.length === 1 &&
    rest[0] === 'callback'
  ) {
    return { page: 'connectors', callback: second };
  }
  if (rest.length > 0) return { page: 'not-found' };
  if (first === 'chats' && second !== undefined) {
    const chatId = decodeSegment(second);
    return chatId === undefined ? { page: 'not-found' } : { page: 'chat', chatId };
  }
  if (first === 'connectors') return second === undefined ? { page: 'connectors' } : { page: 'not-found' };
  if (first === 'jobs') return second === undefined ? { page: 'jobs' } : { page: 'not-found' };
  if (first === 'members') return second === undefined ? { page: 'members' } : { page: 'not-found' };
  if (first === 'tokens') return second === undefined ? { page: 'tokens' } : { page: 'not-found' };
  if (first === 'join') return second === undefined ? { page: 'join' } : { page: 'not-found' };
  if (first === 'authorize') return second === undefined ? { page: 'authorize' } : { page: 'not-found' };
  if (first === 'documents') {
    if (second === undefined) return { page: 'documents' };
    const documentId = decodeSegment(second);
    return documentId === undefined ? { page: 'not-found' } : { page: 'document', documentId };
  }
  return { page: 'not-found' };
}

export function chatPath(chatId: string): string {
  return `/chats/${encodeURIComponent(chatId)}`;
}

export function documentPath(documentId: number | string, passage?: number): string {
  const path = `/documents/${encodeURIComponent(String(documentId))}`;
  return passage === undefined ? path : `${path}?passage=${passage}`;
}

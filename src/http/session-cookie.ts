import type { FastifyRequest } from 'fastify';

/** The browser session's cookie: it holds a bearer token, so the API treats it like one. */
export const SESSION_COOKIE = 'ka_session';

/**
 * One cookie's value in a `Cookie` header (`a=1; b="2"`), the first when the name repeats, or
 * undefined. One forward pass with indexOf, no regex: the header is the client's to make long.
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    // Searched within this pair only: a search of the whole rest of the header per pair is quadratic.
    const pair = header.slice(start, end);
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === name) {
      let value = pair.slice(equals + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value === '' ? undefined : value;
    }
    start = end + 1;
  }
  return undefined;
}

/** The session token the request's cookie carries, if any. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return cookieValue(request.headers.cookie, SESSION_COOKIE);
}

const ATTRIBUTES = 'Path=/; HttpOnly; SameSite=Strict';

/**
 * The `Set-Cookie` value that starts a session: scripts on the page cannot read it (HttpOnly),
 * other sites' requests do not carry it (SameSite=Strict), and over https it is never sent in clear.
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that ends a session: the same cookie, empty and already expired. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0${secure ? '; Secure' : ''}`;
}

/**
 * A 401 from any request means the session cookie is gone (expired, revoked, signed out in another
 * tab): whoever shows the app listens here and goes back to the sign-in page.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

export function onSessionExpired(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reportSessionExpired(): void {
  for (const listener of listeners) listener();
}

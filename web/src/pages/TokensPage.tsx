import { useCallback, useEffect, useState } from 'react';
import { listAccessTokens, revokeAccessToken } from '../api/access-tokens';
import { type ConnectedClient, disconnectClient, listConnectedClients } from '../api/oauth-consent';
import type { AccessToken, NewAccessToken } from '../api/types';
import { AccessTokensTable } from '../components/AccessTokensTable';
import { ConnectedClientsTable } from '../components/ConnectedClientsTable';
import { CopyField } from '../components/CopyField';
import { CreateTokenForm } from '../components/CreateTokenForm';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { focusPageHeading } from '../hooks/focus';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';

/**
 * The page is loaded when first opened (App's lazy import): after a page change its heading came
 * after App moved focus to the stand-in's, which left with it. Focus then lies nowhere: move it here.
 */
function useHeadingFocusAfterLazyLoad(): void {
  useEffect(() => {
    if (document.activeElement === null || document.activeElement === document.body) focusPageHeading();
  }, []);
}

/**
 * The caller's personal access tokens, for scripts and the command-line tool (people who sign in
 * with single sign-on have no password to get one with): make one, shown once to copy; see when
 * each was last used; revoke one, which stops it at once. Below them, the MCP clients the caller
 * allowed on their consent page, each to disconnect.
 */
export function TokensPage() {
  useDocumentTitle('Access tokens');
  useHeadingFocusAfterLazyLoad();
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  const loaded = useLoader(`tokens|${version}`, listAccessTokens);
  const [revokedIds, setRevokedIds] = useState<ReadonlySet<string>>(new Set());
  const tokens = shownValue(loaded)?.filter((token) => !revokedIds.has(String(token.id)));
  const [created, setCreated] = useState<NewAccessToken | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');

  function onCreated(token: NewAccessToken) {
    setCreated(token);
    setAnnouncement(`Token “${token.name}” created: copy it below the form now.`);
    reload();
  }

  async function revoke(token: AccessToken) {
    // A failure is shown in the dialog, which stays open.
    await revokeAccessToken(token.id);
    // Gone from the list at once, not after the list is loaded again.
    setRevokedIds((current) => new Set(current).add(String(token.id)));
    if (created !== undefined && String(created.id) === String(token.id)) setCreated(undefined);
    setAnnouncement(`Token “${token.name}” revoked: it no longer works.`);
    reload();
  }

  return (
    <>
      <h1>Access tokens</h1>
      <p className="intro">
        An access token lets scripts and the command-line tool (as KNOWLEDGE_TOKEN) act as you, seeing what
        you see. Each is shown once, when it is created: keep it secret, and revoke it when it is no longer
        needed.
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      <section className="panel" aria-labelledby="create-token-heading">
        <h2 id="create-token-heading">Create a token</h2>
        <CreateTokenForm onCreated={onCreated} />
        {created === undefined ? null : (
          <div className="new-token">
            <p>
              Your new token <strong>{created.name}</strong>: copy it now, it will not be shown again.
            </p>
            <CopyField id="new-token" label="New token" value={created.token} copyLabel="Copy token" />
          </div>
        )}
      </section>
      <section className="panel" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        {loaded.state === 'failed' ? (
          <ErrorAlert message={`The tokens could not be loaded: ${loaded.message}`}>
            <button type="button" className="button-secondary" onClick={reload}>
              Try again
            </button>
          </ErrorAlert>
        ) : null}
        {loaded.state === 'loading' && tokens === undefined ? <Loading label="Loading the tokens…" /> : null}
        {tokens === undefined ? null : <AccessTokensTable tokens={tokens} onRevoke={revoke} />}
      </section>
      <ConnectedClientsSection onAnnounce={setAnnouncement} />
    </>
  );
}

/** The MCP clients the caller allowed (Claude Desktop, an editor…): each acts as them until disconnected. */
function ConnectedClientsSection({ onAnnounce }: { onAnnounce: (words: string) => void }) {
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  const loaded = useLoader(`connected-clients|${version}`, listConnectedClients);
  const [disconnectedIds, setDisconnectedIds] = useState<ReadonlySet<string>>(new Set());
  const clients = shownValue(loaded)?.filter((client) => !disconnectedIds.has(client.id));

  async function disconnect(client: ConnectedClient) {
    // A failure is shown in the dialog, which stays open.
    await disconnectClient(client.id);
    setDisconnectedIds((current) => new Set(current).add(client.id));
    onAnnounce(`“${client.client_name}” disconnected: it no longer works.`);
    reload();
  }

  return (
    <section className="panel" aria-labelledby="connected-clients-heading">
      <h2 id="connected-clients-heading">Connected clients</h2>
      <p className="intro">
        Applications you allowed to connect to Knowledge answers through their own sign-in (MCP clients such
        as desktop assistants and editors): each searches, reads and asks as you until you disconnect it.
      </p>
      {loaded.state === 'failed' ? (
        <ErrorAlert message={`The connected clients could not be loaded: ${loaded.message}`}>
          <button type="button" className="button-secondary" onClick={reload}>
            Try again
          </button>
        </ErrorAlert>
      ) : null}
      {loaded.state === 'loading' && clients === undefined ? (
        <Loading label="Loading the connected clients…" />
      ) : null}
      {clients === undefined ? null : <ConnectedClientsTable clients={clients} onDisconnect={disconnect} />}
    </section>
  );
}

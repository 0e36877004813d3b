import { useCallback, useState } from 'react';
import type { Connector } from '../api/connectors';
import { describeError } from '../api/http';
import { exchangeGoogleCode, type OAuthProviders } from '../api/oauth';
import { useOAuthCallback } from '../hooks/useOAuthCallback';
import { beginAuthorization } from '../lib/oauth-flow';
import { ConnectorList } from './ConnectorList';
import { DriveChooser } from './DriveChooser';
import { DriveIndexProgress } from './DriveIndexProgress';

interface GoogleDriveSectionProps {
  google: OAuthProviders['google_drive'];
  /** The team's Drive connector, once anything was indexed from Drive. */
  connector: Connector | undefined;
  /** Google's redirect back (`?code&state` or `?error`), when the page is its callback. */
  callbackQuery: URLSearchParams | undefined;
  /** Something was indexed: the connectors (document counts) changed. */
  onIndexed: () => void;
}

/**
 * "Connect Google Drive": Google's authorization-code flow with PKCE (the code exchanged through
 * the service's token proxy), then a chooser of the person's folders and files, then the indexing
 * job's progress. The Google token lives in this page's memory only.
 */
export function GoogleDriveSection({ google, connector, callbackQuery, onIndexed }: GoogleDriveSectionProps) {
  const [accessToken, setAccessToken] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const headingRef = useOAuthCallback('google-drive', callbackQuery, google !== null, (outcome) => {
    if (outcome.kind === 'refused') {
      setMessage(outcome.message);
      return;
    }
    // The hook hands on an outcome only while Google is configured.
    if (google === null) return;
    setBusy(true);
    exchangeGoogleCode(google, outcome.code, outcome.verifier ?? '').then(
      (token) => {
        setBusy(false);
        setAccessToken(token);
      },
      (error: unknown) => {
        setBusy(false);
        setMessage(`Google Drive was not connected: ${describeError(error)}`);
      },
    );
  });

  async function connect() {
    if (google === null) return;
    setMessage(undefined);
    setBusy(true);
    try {
      const url = await beginAuthorization('google-drive', {
        authorizeUrl: google.authorize_url,
        params: {
          client_id: google.client_id,
          redirect_uri: google.redirect_uri,
          response_type: 'code',
          scope: google.scope,
          // A token for this visit only: nothing is kept that could read the Drive later.
          access_type: 'online',
          include_granted_scopes: 'true',
        },
        pkce: true,
      });
      window.location.assign(url);
    } catch (error) {
      setBusy(false);
      setMessage(describeError(error));
    }
  }

  const onTokenRejected = useCallback((words: string) => {
    setAccessToken(undefined);
    setMessage(words);
  }, []);

  return (
    <section className="panel" aria-labelledby="drive-heading">
      <h2 id="drive-heading" ref={headingRef} tabIndex={-1}>
        Google Drive
      </h2>
      {connector === undefined ? null : (
        <ConnectorList connectors={[connector]} label="Google Drive connector" />
      )}
      {google === null ? (
        <p className="muted">
          Not set up on this server: an administrator sets GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (a Google
          OAuth client for a web application) to connect Drive from here.
        </p>
      ) : accessToken === undefined ? (
        <>
          <p className="muted">
            Sign in with Google, then pick the folders and files to index. Only read access is asked for, for
            this visit.
          </p>
          <button type="button" className="button-primary" onClick={connect} disabled={busy}>
            Connect Google Drive
          </button>
          {busy ? (
            <p role="status" className="muted">
              Connecting to Google Drive…
            </p>
          ) : null}
        </>
      ) : (
        <DriveChooser
          accessToken={accessToken}
          onTokenRejected={onTokenRejected}
          onQueued={(job) => setJobId(job.result_id)}
        />
      )}
      {message === undefined ? null : (
        <p role="alert" className="error-text">
          {message}
        </p>
      )}
      {jobId === undefined ? null : <DriveIndexProgress resultId={jobId} onFinished={onIndexed} />}
    </section>
  );
}

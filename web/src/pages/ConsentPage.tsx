import { type ReactNode, useState } from 'react';
import { ApiError, describeError } from '../api/http';
import {
  type AuthorizationRequest,
  authorizationRequestOf,
  type ConsentView,
  decideConsent,
  reviewConsent,
} from '../api/oauth-consent';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { useLoader } from '../hooks/useLoader';

const UNUSABLE = 'This connection request cannot be used';
const START_AGAIN = 'Start connecting again from the application.';

/** The page alone, as the sign-in page is: nothing to wander off to in the middle of a connection. */
function Standalone({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="app-header">
        <span className="brand">Knowledge answers</span>
      </header>
      <main id="main" className="page sign-in-page consent-page">
        {children}
      </main>
    </>
  );
}

/**
 * Where GET /oauth/authorize sends the browser (`/authorize?client_id=…`): an MCP client (a desktop
 * assistant, an editor) asks to act as the signed-in person; Allow or Deny, and the browser goes
 * back to the client's redirect URI with the answer.
 */
export function ConsentPage({
  query,
  onSwitchAccount,
}: {
  query: URLSearchParams;
  /** Signs out and stays here: the sign-in page shows, then this request again. */
  onSwitchAccount: () => Promise<void>;
}) {
  useDocumentTitle('Connect an application');
  const request = authorizationRequestOf(query);
  const [attempt, setAttempt] = useState(0);
  const loaded = useLoader(`consent|${attempt}|${JSON.stringify(request)}`, (signal) =>
    reviewConsent(request, signal),
  );

  if (loaded.state === 'loaded') {
    return (
      <Standalone>
        <ConsentForm request={request} view={loaded.value} onSwitchAccount={onSwitchAccount} />
      </Standalone>
    );
  }
  if (loaded.state === 'failed' && loaded.error instanceof ApiError && loaded.error.status === 400) {
    return (
      <Standalone>
        <h1>{UNUSABLE}</h1>
        <ErrorAlert message={loaded.message}>
          <p>{START_AGAIN}</p>
        </ErrorAlert>
      </Standalone>
    );
  }
  return (
    <Standalone>
      <h1>Connect an application</h1>
      {loaded.state === 'failed' ? (
        <ErrorAlert message={`The connection request could not be loaded: ${loaded.message}`}>
          <button type="button" className="button-secondary" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </ErrorAlert>
      ) : (
        <Loading label="Loading the connection request…" />
      )}
    </Standalone>
  );
}

type Decision = 'allow' | 'deny';

function ConsentForm({
  request,
  view,
  onSwitchAccount,
}: {
  request: AuthorizationRequest;
  view: ConsentView;
  onSwitchAccount: () => Promise<void>;
}) {
  const [sending, setSending] = useState<Decision | undefined>(undefined);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  // The service refused the decision as no longer valid: another press would be refused too.
  const [spent, setSpent] = useState(false);

  async function decide(decision: Decision) {
    if (sending !== undefined) return;
    setSending(decision);
    setError(undefined);
    try {
      const redirectTo = await decideConsent(request, decision);
      // The buttons stay disabled: the browser is on its way to the application.
      setLeaving(true);
      window.location.assign(redirectTo);
    } catch (failure) {
      setSending(undefined);
      setError(describeError(failure));
      if (failure instanceof ApiError && failure.status === 400) setSpent(true);
    }
  }

  return (
    <>
      <h1>Connect {view.client_name}?</h1>
      <p className="intro">
        An application that calls itself “{view.client_name}” asks to use Knowledge answers as you,{' '}
        <strong className="consent-account">{view.signed_in_as}</strong>.{' '}
        <button
          type="button"
          className="button-link"
          disabled={sending !== undefined}
          onClick={() => {
            onSwitchAccount().catch((failure: unknown) => setError(describeError(failure)));
          }}
        >
          Use another account
        </button>
      </p>
      <p id="consent-abilities">If you allow it, it can:</p>
      <ul aria-labelledby="consent-abilities">
        {view.abilities.map((ability) => (
          <li key={ability}>{ability}</li>
        ))}
      </ul>
      <p>It sees only what you can open, and it cannot change documents or manage your team.</p>
      <p>
        Either way, your browser then goes to <strong className="consent-host">{view.redirect_host}</strong>.
      </p>
      <p className="muted">
        “{view.client_name}” is the name the application gave itself
        {view.client_uri === null ? '' : `, as is its website, ${view.client_uri}`}: nobody has checked it.
        Allow only if you have just started connecting from that application.
      </p>
      {error === undefined ? null : (
        <ErrorAlert message={error}>{spent ? <p>{START_AGAIN}</p> : null}</ErrorAlert>
      )}
      {spent ? null : (
        <div className="form-actions">
          <button
            type="button"
            className="button-primary"
            disabled={sending !== undefined}
            onClick={() => decide('allow')}
          >
            Allow
          </button>
          <button
            type="button"
            className="button-secondary"
            disabled={sending !== undefined}
            onClick={() => decide('deny')}
          >
            Deny
          </button>
        </div>
      )}
      <p role="status" className="muted">
        {leaving ? `Going back to ${view.redirect_host}…` : ''}
      </p>
    </>
  );
}

import { useState } from 'react';
import type { Connector } from '../api/connectors';
import { describeError } from '../api/http';
import { installSlackApp, type OAuthProviders } from '../api/oauth';
import { useOAuthCallback } from '../hooks/useOAuthCallback';
import { beginAuthorization } from '../lib/oauth-flow';

interface SlackSectionProps {
  slack: OAuthProviders['slack'];
  /** The team's Slack installations (one per workspace). */
  installations: readonly Connector[];
  /** Slack's redirect back (`?code&state` or `?error`), when the page is its callback. */
  callbackQuery: URLSearchParams | undefined;
  onInstalled: () => void;
}

function workspaceName(connector: Connector): string {
  const name = connector.config.slack_team_name;
  const id = connector.config.slack_team_id;
  if (typeof name === 'string' && name !== '') return name;
  return typeof id === 'string' ? id : connector.name;
}

/**
 * "Add to Slack": Slack's OAuth v2 install, its code handed to the service (which keeps the client
 * secret), then the workspaces the bot answers in.
 */
export function SlackSection({ slack, installations, callbackQuery, onInstalled }: SlackSectionProps) {
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [installed, setInstalled] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const headingRef = useOAuthCallback('slack', callbackQuery, slack !== null, (outcome) => {
    if (outcome.kind === 'refused') {
      setMessage(outcome.message);
      return;
    }
    setBusy(true);
    installSlackApp(outcome.code).then(
      (installation) => {
        setBusy(false);
        setInstalled(installation.slack_team_name ?? installation.slack_team_id);
        onInstalled();
      },
      (error: unknown) => {
        setBusy(false);
        setMessage(`Slack was not connected: ${describeError(error)}`);
      },
    );
  });

  async function addToSlack() {
    if (slack === null) return;
    setMessage(undefined);
    setBusy(true);
    try {
      const url = await beginAuthorization('slack', {
        authorizeUrl: slack.authorize_url,
        params: {
          client_id: slack.client_id,
          scope: slack.scope,
          ...(slack.redirect_uri === null ? {} : { redirect_uri: slack.redirect_uri }),
        },
        pkce: false,
      });
      window.location.assign(url);
    } catch (error) {
      setBusy(false);
      setMessage(describeError(error));
    }
  }

  const names = installations.map(workspaceName);
  return (
    <section className="panel" aria-labelledby="slack-heading">
      <h2 id="slack-heading" ref={headingRef} tabIndex={-1}>
        Slack
      </h2>
      {names.length === 0 ? (
        <p className="muted">
          Not installed. Once added, people ask the bot by mentioning it or in a direct message.
        </p>
      ) : (
        <p>
          The bot answers in {names.length === 1 ? 'the workspace' : 'the workspaces'}{' '}
          <strong className="slack-workspaces">{names.join(', ')}</strong>: mention it, or send it a direct
          message.
        </p>
      )}
      {slack === null ? (
        <p className="muted">
          Not set up on this server: an administrator sets SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (and
          SLACK_SIGNING_SECRET for the bot’s events) to add the bot from here.
        </p>
      ) : (
        <button type="button" className="button-primary" onClick={addToSlack} disabled={busy}>
          Add to Slack
        </button>
      )}
      <p role="status" className="muted">
        {busy ? 'Connecting to Slack…' : installed === undefined ? '' : `Installed in ${installed}.`}
      </p>
      {message === undefined ? null : (
        <p role="alert" className="error-text">
          {message}
        </p>
      )}
    </section>
  );
}

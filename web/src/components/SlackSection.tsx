import { useId, useState } from 'react';
import { type Connector, deleteConnector } from '../api/connectors';
import { describeError } from '../api/http';
import { installSlackApp, type OAuthProviders } from '../api/oauth';
import { useOAuthCallback } from '../hooks/useOAuthCallback';
import { beginAuthorization } from '../lib/oauth-flow';
import { ConfirmDialog } from './ConfirmDialog';

interface SlackSectionProps {
  slack: OAuthProviders['slack'];
  /** The team's Slack installations (one per workspace). */
  installations: readonly Connector[];
  /** The caller is an owner or admin: only they install, reinstall or remove the bot (the service says so too). */
  mayManage: boolean;
  /** Slack's redirect back (`?code&state` or `?error`), when the page is its callback. */
  callbackQuery: URLSearchParams | undefined;
  onInstalled: () => void;
  onRemoved: () => void;
}

function workspaceName(connector: Connector): string {
  const name = connector.config.slack_team_name;
  const id = connector.config.slack_team_id;
  if (typeof name === 'string' && name !== '') return name;
  return typeof id === 'string' ? id : connector.name;
}

function workspaceId(connector: Connector): string | undefined {
  const id = connector.config.slack_team_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * "Add to Slack": Slack's OAuth v2 install, its code handed to the service (which keeps the client
 * secret), then the workspaces the bot answers in. Once installed, a workspace offers `Reinstall`
 * (the same trip, to grant new scopes or a new token) and, to owners and admins, `Remove`.
 */
export function SlackSection({
  slack,
  installations,
  mayManage,
  callbackQuery,
  onInstalled,
  onRemoved,
}: SlackSectionProps) {
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState<Connector | undefined>(undefined);
  const idPrefix = useId();
  const headingRef = useOAuthCallback('slack', callbackQuery, slack !== null, (outcome) => {
    if (outcome.kind === 'refused') {
      setMessage(outcome.message);
      return;
    }
    setBusy(true);
    installSlackApp(outcome.code).then(
      (installation) => {
        setBusy(false);
        setDone(`Installed in ${installation.slack_team_name ?? installation.slack_team_id}.`);
        onInstalled();
      },
      (error: unknown) => {
        setBusy(false);
        setMessage(`Slack was not connected: ${describeError(error)}`);
      },
    );
  });

  /** Off to Slack's install page; `team` narrows it to one workspace (a reinstall). */
  async function install(team: string | undefined) {
    if (slack === null) return;
    setMessage(undefined);
    setDone(undefined);
    setBusy(true);
    try {
      const url = await beginAuthorization('slack', {
        authorizeUrl: slack.authorize_url,
        params: {
          client_id: slack.client_id,
          scope: slack.scope,
          ...(slack.redirect_uri === null ? {} : { redirect_uri: slack.redirect_uri }),
          ...(team === undefined ? {} : { team }),
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
  const several = installations.length > 1;
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
      {mayManage && installations.length > 0 ? (
        <ul className="slack-installations">
          {installations.map((installation) => {
            // Each button is described by its workspace: with several, that says which one it acts on.
            const nameId = `${idPrefix}-${installation.id}`;
            return (
              <li key={installation.id} className="slack-installation form-actions">
                <span id={nameId} className={several ? 'slack-installation-name' : 'visually-hidden'}>
                  {workspaceName(installation)}
                </span>
                {slack === null ? null : (
                  <button
                    type="button"
                    className="button-secondary"
                    aria-describedby={nameId}
                    onClick={() => install(workspaceId(installation))}
                    disabled={busy}
                  >
                    Reinstall
                  </button>
                )}
                <button
                  type="button"
                  className="button-quiet"
                  aria-describedby={nameId}
                  onClick={() => setRemoving(installation)}
                  disabled={busy}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {slack === null ? (
        <p className="muted">
          Not set up on this server: an administrator sets SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (and
          SLACK_SIGNING_SECRET for the bot’s events) to add the bot from here.
        </p>
      ) : names.length > 0 ? null : mayManage ? (
        <button type="button" className="button-primary" onClick={() => install(undefined)} disabled={busy}>
          Add to Slack
        </button>
      ) : (
        <p className="muted">The team’s owner or an admin adds the bot.</p>
      )}
      <p role="status" className="muted">
        {busy ? 'Connecting to Slack…' : (done ?? '')}
      </p>
      {message === undefined ? null : (
        <p role="alert" className="error-text">
          {message}
        </p>
      )}
      {removing === undefined ? null : (
        <ConfirmDialog
          title="Remove the Slack bot?"
          message={`The bot stops answering in ${workspaceName(removing)}. It can be added again later.`}
          confirmLabel="Remove"
          busyLabel="Removing…"
          onConfirm={async () => {
            await deleteConnector(removing.slug, removing.id);
            setDone(`Removed from ${workspaceName(removing)}.`);
            onRemoved();
          }}
          onClose={(confirmed) => {
            setRemoving(undefined);
            // The button pressed is gone: the section's heading keeps the keyboard's place.
            if (confirmed) headingRef.current?.focus();
          }}
        />
      )}
    </section>
  );
}

import { useCallback, useState } from 'react';
import { type Connector, listConnectors } from '../api/connectors';
import { getOAuthProviders } from '../api/oauth';
import type { TeamRole } from '../api/types';
import type { SavedWikiConnector } from '../api/wiki';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { GoogleDriveSection } from '../components/GoogleDriveSection';
import { SlackSection } from '../components/SlackSection';
import { WikiConnectorForm } from '../components/WikiConnectorForm';
import { WikiSyncPanel } from '../components/WikiSyncPanel';
import { managesTeam } from '../format/members';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';

interface ConnectorsPageProps {
  /** The provider whose OAuth redirect brought the browser back here, with its query. */
  callback: 'google-drive' | 'slack' | undefined;
  query: URLSearchParams;
  /** The signed-in member's role: owners and admins add and remove the Slack bot. */
  viewerRole: TeamRole | undefined;
}

/**
 * The team's connectors: Confluence (a form the service checks against the wiki, its sync status
 * and "Sync now"), Google Drive (connect, choose, index) and Slack (add the bot), each offered
 * only when the server is set up for it.
 */
export function ConnectorsPage({ callback, query, viewerRole }: ConnectorsPageProps) {
  useDocumentTitle('Connectors');
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  const loaded = useLoader(String(version), async (signal) => {
    const [list, providers] = await Promise.all([listConnectors(signal), getOAuthProviders(signal)]);
    return { ...list, providers };
  });
  const value = shownValue(loaded);
  const connectors = value?.connectors;
  // The redirect's query as it arrived: a section replaces the address once it has read it.
  const [callbackQuery] = useState(() => (callback === undefined ? undefined : { callback, query }));
  // What the last save answered: shown until the list, reloaded, has it too.
  const [saved, setSaved] = useState<SavedWikiConnector | undefined>(undefined);

  const listedWiki = connectors?.find((connector) => connector.slug === 'wiki');
  const wiki: Connector | undefined = listedWiki ?? saved;
  const drive = connectors?.find((connector) => connector.slug === 'googledrive');
  const slackInstallations = connectors?.filter((connector) => connector.slug === 'chatapp') ?? [];

  function onSaved(answer: SavedWikiConnector) {
    setSaved(answer);
    reload();
  }

  return (
    <>
      <h1>Connectors</h1>
      <p className="intro">
        Connect your team’s knowledge: its pages are indexed in the background, kept in sync, and cited in
        answers.
      </p>
      {loaded.state === 'failed' ? (
        <ErrorAlert message={loaded.message}>
          <button type="button" className="button-secondary" onClick={reload}>
            Try again
          </button>
        </ErrorAlert>
      ) : null}
      {loaded.state === 'loading' && connectors === undefined ? (
        <Loading label="Loading the connectors…" />
      ) : null}
      {value === undefined ? null : (
        <>
          <section className="panel" aria-labelledby="confluence-heading">
            <h2 id="confluence-heading">Confluence</h2>
            {wiki === undefined ? (
              <p className="muted">
                Not connected. Give your Confluence site, the account’s e-mail and an API token, and the key
                of the space to index.
              </p>
            ) : (
              <WikiSyncPanel connector={wiki} startedSync={saved?.result_id} onSynced={reload} />
            )}
            <h3>{wiki === undefined ? 'Connect a space' : 'Settings'}</h3>
            <WikiConnectorForm
              connector={wiki}
              siteRequired={!value.wiki_base_url_configured}
              onSaved={onSaved}
            />
          </section>
          <GoogleDriveSection
            google={value.providers.google_drive}
            connector={drive}
            callbackQuery={callbackQuery?.callback === 'google-drive' ? callbackQuery.query : undefined}
            onIndexed={reload}
          />
          <SlackSection
            slack={value.providers.slack}
            installations={slackInstallations}
            mayManage={managesTeam(viewerRole)}
            callbackQuery={callbackQuery?.callback === 'slack' ? callbackQuery.query : undefined}
            onInstalled={reload}
            onRemoved={reload}
          />
        </>
      )}
    </>
  );
}

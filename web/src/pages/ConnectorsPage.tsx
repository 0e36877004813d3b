import { useCallback, useState } from 'react';
import { type Connector, listConnectors } from '../api/connectors';
import type { SavedWikiConnector } from '../api/wiki';
import { ConnectorList } from '../components/ConnectorList';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { WikiConnectorForm } from '../components/WikiConnectorForm';
import { WikiSyncPanel } from '../components/WikiSyncPanel';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';

/**
 * The team's connectors: Confluence to connect (a form the service checks against the wiki), its
 * sync status and "Sync now"; the other kinds the team already has, read-only.
 */
export function ConnectorsPage() {
  useDocumentTitle('Connectors');
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  const loaded = useLoader(String(version), (signal) => listConnectors(signal));
  const connectors = shownValue(loaded);
  // What the last save answered: shown until the list, reloaded, has it too.
  const [saved, setSaved] = useState<SavedWikiConnector | undefined>(undefined);

  const listedWiki = connectors?.find((connector) => connector.slug === 'wiki');
  const wiki: Connector | undefined = listedWiki ?? saved;
  const others = connectors?.filter((connector) => connector.slug !== 'wiki') ?? [];

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
      {connectors === undefined ? null : (
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
            <WikiConnectorForm connector={wiki} onSaved={onSaved} />
          </section>
          {others.length === 0 ? null : (
            <section className="panel" aria-labelledby="other-connectors-heading">
              <h2 id="other-connectors-heading">Other connectors</h2>
              <p className="muted">Your team’s other sources, as they are now.</p>
              <ConnectorList connectors={others} />
            </section>
          )}
        </>
      )}
    </>
  );
}

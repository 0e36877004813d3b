import type { Connector } from '../api/connectors';
import { connectorKindName, connectorStatusWords, lastSyncWords } from '../format/connectors';

/**
 * The team's other connectors (Google Drive, Slack), read-only: connecting them from the app comes
 * later, so nothing here acts on them.
 */
export function ConnectorList({ connectors }: { connectors: readonly Connector[] }) {
  return (
    <ul className="connector-list" aria-label="Other connectors">
      {connectors.map((connector) => (
        <li key={connector.id} className="connector-item">
          <span className="connector-name">{connector.name}</span>
          <dl className="document-facts">
            <div>
              <dt>Kind</dt>
              <dd>{connectorKindName(connector.slug)}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>{connectorStatusWords(connector.status)}</dd>
            </div>
            {connector.slug === 'chatapp' ? null : (
              <>
                <div>
                  <dt>Last sync</dt>
                  <dd>{lastSyncWords(connector.last_synced_at)}</dd>
                </div>
                <div>
                  <dt>Documents</dt>
                  <dd>{connector.document_count}</dd>
                </div>
              </>
            )}
          </dl>
        </li>
      ))}
    </ul>
  );
}

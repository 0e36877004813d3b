import type { Connector } from '../api/connectors';
import { connectorKindName, connectorStatusWords, lastSyncWords } from '../format/connectors';

/** Connectors with their kind, status, last sync and document count (read-only facts). */
export function ConnectorList({ connectors, label }: { connectors: readonly Connector[]; label: string }) {
  return (
    <ul className="connector-list" aria-label={label}>
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

import { useState } from 'react';
import type { ConnectedClient } from '../api/oauth-consent';
import { formatDate, formatDateTime } from '../format/dates';
import { focusPageHeading } from '../hooks/focus';
import { BreakableName } from './BreakableName';
import { ConfirmDialog } from './ConfirmDialog';

interface ConnectedClientsTableProps {
  clients: readonly ConnectedClient[];
  /** Disconnects one; a failure is shown in the confirmation, which stays open. */
  onDisconnect: (client: ConnectedClient) => Promise<void>;
}

/**
 * The MCP clients the caller allowed: name, connected, last used, and `Disconnect` (confirmed
 * first). Laid out as the access tokens' table is (a card per row on a narrow screen).
 */
export function ConnectedClientsTable({ clients, onDisconnect }: ConnectedClientsTableProps) {
  const [disconnecting, setDisconnecting] = useState<ConnectedClient | undefined>(undefined);
  if (clients.length === 0) return <p className="muted">No connected clients.</p>;
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a narrow desktop window; a keyboard must reach it to scroll it */}
      <section className="table-scroll" aria-labelledby="connected-clients-caption" tabIndex={0}>
        <table className="tokens-table">
          <caption id="connected-clients-caption">Your connected clients ({clients.length})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Connected</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {clients.map((client) => (
              <tr key={client.id}>
                <th scope="row" className="token-name">
                  <BreakableName text={client.client_name} />
                </th>
                <td data-label="Connected">
                  <time dateTime={client.connected_at}>{formatDate(client.connected_at)}</time>
                </td>
                <td data-label="Last used">
                  <time dateTime={client.last_used_at}>{formatDateTime(client.last_used_at)}</time>
                </td>
                <td className="token-actions">
                  <button type="button" className="button-quiet" onClick={() => setDisconnecting(client)}>
                    Disconnect<span className="visually-hidden"> {client.client_name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {disconnecting === undefined ? null : (
        <ConfirmDialog
          title="Disconnect this client?"
          message={`“${disconnecting.client_name}” stops working at once: it can no longer search, read or ask as you until you connect it again.`}
          confirmLabel="Disconnect"
          busyLabel="Disconnecting…"
          onConfirm={() => onDisconnect(disconnecting)}
          onClose={(confirmed) => {
            setDisconnecting(undefined);
            if (confirmed) window.setTimeout(focusPageHeading);
          }}
        />
      )}
    </>
  );
}

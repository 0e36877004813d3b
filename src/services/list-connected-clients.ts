import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

/** A client the caller connected (their Allow on its consent page), as the tokens page lists it. */
export interface ConnectedClientView {
  /** The connection's id: DELETE /v1/users/me/connected-clients/{id} revokes it. */
  readonly id: string;
  readonly client_id: string;
  readonly client_name: string;
  readonly client_uri: string | null;
  readonly connected_at: string;
  /** Its latest token exchange or use (written at most about once a minute). */
  readonly last_used_at: string;
}

/** The MCP clients the caller allowed, newest first; never a token. */
export async function listConnectedClients(
  deps: Pick<ServiceDependencies, 'data'>,
  caller: Caller,
): Promise<{ clients: ConnectedClientView[] }> {
  const rows = await deps.data.oauth.listUserGrants(caller.userId);
  return {
    clients: rows.map((row) => ({
      id: row.grantId,
      client_id: row.clientId,
      client_name: row.clientName,
      client_uri: row.clientUri,
      connected_at: row.connectedAt.toISOString(),
      last_used_at: row.lastUsedAt.toISOString(),
    })),
  };
}

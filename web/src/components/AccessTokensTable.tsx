import { useState } from 'react';
import type { AccessToken } from '../api/types';
import { formatDate, formatDateTime } from '../format/dates';
import { focusPageHeading } from '../hooks/focus';
import { BreakableName } from './BreakableName';
import { ConfirmDialog } from './ConfirmDialog';

interface AccessTokensTableProps {
  tokens: readonly AccessToken[];
  /** Revokes one; a failure is shown in the confirmation, which stays open. */
  onRevoke: (token: AccessToken) => Promise<void>;
}

/**
 * The caller's access tokens: name, made, expires, last used, and `Revoke` (confirmed first). A
 * table; on a narrow screen the styles lay each row out as a card, its cells labelled by `data-label`.
 */
export function AccessTokensTable({ tokens, onRevoke }: AccessTokensTableProps) {
  const [revoking, setRevoking] = useState<AccessToken | undefined>(undefined);
  if (tokens.length === 0) return <p className="muted">No access tokens yet.</p>;
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a narrow desktop window; a keyboard must reach it to scroll it */}
      <section className="table-scroll" aria-labelledby="tokens-caption" tabIndex={0}>
        <table className="tokens-table">
          <caption id="tokens-caption">Your access tokens ({tokens.length})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.id}>
                <th scope="row" className="token-name">
                  <BreakableName text={token.name} />
                </th>
                <td data-label="Created">
                  <time dateTime={token.created_at}>{formatDate(token.created_at)}</time>
                </td>
                <td data-label="Expires">
                  {token.expires_at === null ? (
                    'Never'
                  ) : (
                    <time dateTime={token.expires_at}>{formatDate(token.expires_at)}</time>
                  )}
                </td>
                <td data-label="Last used">
                  {token.last_used_at === null ? (
                    'Never'
                  ) : (
                    <time dateTime={token.last_used_at}>{formatDateTime(token.last_used_at)}</time>
                  )}
                </td>
                <td className="token-actions">
                  <button type="button" className="button-quiet" onClick={() => setRevoking(token)}>
                    Revoke<span className="visually-hidden"> {token.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {revoking === undefined ? null : (
        <ConfirmDialog
          title="Revoke this token?"
          message={`“${revoking.name}” stops working at once: scripts and the command-line tool that use it will be refused.`}
          confirmLabel="Revoke"
          busyLabel="Revoking…"
          onConfirm={() => onRevoke(revoking)}
          onClose={(confirmed) => {
            setRevoking(undefined);
            if (confirmed) window.setTimeout(focusPageHeading);
          }}
        />
      )}
    </>
  );
}

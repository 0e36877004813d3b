import type { Invitation } from '../api/types';
import { formatDateTime } from '../format/dates';
import { roleWord } from '../format/members';

interface InvitationsListProps {
  invitations: readonly Invitation[];
  /** Withdraws one; the page says how it went. */
  onWithdraw: (invitation: Invitation) => void;
}

/** The open invitations: who, as what, until when, and `Withdraw`. */
export function InvitationsList({ invitations, onWithdraw }: InvitationsListProps) {
  if (invitations.length === 0) return <p className="muted">No open invitations.</p>;
  return (
    <ul className="invitations" aria-label="Open invitations">
      {invitations.map((invitation) => (
        <li key={invitation.invitation_id} className="invitation">
          <span className="invitation-email">{invitation.email}</span>
          <span className="muted">
            as {roleWord(invitation.role)}, until{' '}
            <time dateTime={invitation.expires_at}>{formatDateTime(invitation.expires_at)}</time>
          </span>
          <button type="button" className="button-quiet" onClick={() => onWithdraw(invitation)}>
            Withdraw<span className="visually-hidden"> invitation for {invitation.email}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

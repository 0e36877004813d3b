import type { NewInvitation } from '../api/types';
import { formatDateTime } from '../format/dates';
import { invitationLink } from '../format/members';
import { CopyField } from './CopyField';

/**
 * The link a new invitation makes, to send to the person invited: a read-only field (select it and
 * copy by hand if the browser refuses) and `Copy link`. The code is shown only now: the service
 * keeps it hashed, and the list of invitations never has it.
 */
export function InvitationLink({ invitation }: { invitation: NewInvitation }) {
  const link = invitationLink(window.location.origin, invitation.code);
  return (
    <div className="invitation-link">
      <p>
        Send this link to <strong>{invitation.email}</strong>: it creates their account in this team, as{' '}
        {invitation.role}, once, until{' '}
        <time dateTime={invitation.expires_at}>{formatDateTime(invitation.expires_at)}</time>. It is shown
        only now.
      </p>
      <CopyField id="invitation-link" label="Invitation link" value={link} copyLabel="Copy link" />
    </div>
  );
}

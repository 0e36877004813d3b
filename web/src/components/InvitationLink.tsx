import { useEffect, useRef, useState } from 'react';
import type { NewInvitation } from '../api/types';
import { formatDateTime } from '../format/dates';
import { invitationLink } from '../format/members';

/**
 * The link a new invitation makes, to send to the person invited: a read-only field (select it and
 * copy by hand if the browser refuses) and `Copy link`. The code is shown only now: the service
 * keeps it hashed, and the list of invitations never has it.
 */
export function InvitationLink({ invitation }: { invitation: NewInvitation }) {
  const link = invitationLink(window.location.origin, invitation.code);
  const input = useRef<HTMLInputElement>(null);
  const [result, setResult] = useState('');

  useEffect(() => {
    if (result === '') return;
    const timer = window.setTimeout(() => setResult(''), 4000);
    return () => window.clearTimeout(timer);
  }, [result]);

  async function copy() {
    try {
      // Undefined outside a secure context (plain http to another host than localhost).
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(link);
      setResult('Copied.');
    } catch {
      input.current?.focus();
      input.current?.select();
      setResult(
        'Could not copy: the browser did not allow it. The link is selected: copy it from the field.',
      );
    }
  }

  return (
    <div className="invitation-link">
      <p>
        Send this link to <strong>{invitation.email}</strong>: it creates their account in this team, as{' '}
        {invitation.role}, once, until{' '}
        <time dateTime={invitation.expires_at}>{formatDateTime(invitation.expires_at)}</time>. It is shown
        only now.
      </p>
      <div className="field">
        <label htmlFor="invitation-link">Invitation link</label>
        <div className="copy-row">
          <input
            id="invitation-link"
            ref={input}
            type="text"
            readOnly
            value={link}
            spellCheck={false}
            onFocus={(event) => event.target.select()}
          />
          <button type="button" className="button-secondary" onClick={copy}>
            Copy link
          </button>
        </div>
        <span role="status" className="muted">
          {result}
        </span>
      </div>
    </div>
  );
}

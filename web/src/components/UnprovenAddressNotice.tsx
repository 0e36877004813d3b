import { useState } from 'react';
import { ApiError, describeError } from '../api/http';
import { requestEmailConfirmation } from '../api/users';

/**
 * Why documents shared with the signed-in person may be missing: an address counts in a
 * document's sharing only once it is proven, so until then they see what the whole team may open
 * and what they uploaded themselves. The button mails a confirmation link (where the server can
 * send mail; otherwise the service's reason is shown).
 */
export function UnprovenAddressNotice({ email }: { email: string }) {
  const [outcome, setOutcome] = useState<{ failed: boolean; message: string } | undefined>();
  const [sending, setSending] = useState(false);

  async function send() {
    setSending(true);
    try {
      setOutcome({ failed: false, message: await requestEmailConfirmation() });
    } catch (error) {
      setOutcome({ failed: true, message: refusalWords(error) });
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="notice-box">
      <p>
        <strong>Confirm your e-mail address to see documents shared with it.</strong> Until {email} is
        confirmed, you see what is shared with the whole team and what you uploaded yourself, not files shared
        with your address or its domain.
      </p>
      <button type="button" className="button-secondary" onClick={send} disabled={sending}>
        Send a confirmation link
      </button>
      {outcome === undefined ? null : <p role={outcome.failed ? 'alert' : 'status'}>{outcome.message}</p>}
    </div>
  );
}

/** This service answers 503 when it has no mail server to send the link with. */
function refusalWords(error: unknown): string {
  if (error instanceof ApiError && error.status === 503) {
    return 'This server cannot send e-mail, so it cannot confirm your address: ask whoever runs it to set up mail.';
  }
  return describeError(error);
}

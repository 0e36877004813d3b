import { type FormEvent, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/http';
import { type AssignableRole, inviteMember } from '../api/teams';
import type { NewInvitation } from '../api/types';
import { fieldErrors } from '../format/field-errors';
import { ErrorAlert } from './ErrorAlert';
import { TextField } from './TextField';

type Errors = { email?: string; role?: string; form?: string };

/** A failed invitation as errors by field (a 422), else the service's words above the form. */
function inviteErrors(error: unknown): Errors {
  if (error instanceof ApiError && error.status === 422 && error.issues.length > 0) {
    const { byField, other } = fieldErrors(error.issues, ['email', 'role'] as const);
    return other.length === 0 ? byField : { ...byField, form: other.join(' ') };
  }
  return { form: describeError(error) };
}

/** Invite by e-mail with a role (member or admin); the new invitation goes to `onInvited`. */
export function InviteForm({ onInvited }: { onInvited: (invitation: NewInvitation) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<AssignableRole>('member');
  const [errors, setErrors] = useState<Errors>({});
  const [sending, setSending] = useState(false);
  const busy = useRef(false);
  const emailInput = useRef<HTMLInputElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // The button stays enabled (a disabled one would drop keyboard focus); a second press waits.
    if (busy.current) return;
    if (email.trim() === '') {
      setErrors({ email: 'Enter the e-mail address to invite.' });
      emailInput.current?.focus();
      return;
    }
    busy.current = true;
    setSending(true);
    setErrors({});
    try {
      const invitation = await inviteMember(email.trim(), role);
      setEmail('');
      setRole('member');
      onInvited(invitation);
    } catch (error) {
      const found = inviteErrors(error);
      setErrors(found);
      if (found.email !== undefined) emailInput.current?.focus();
    } finally {
      busy.current = false;
      setSending(false);
    }
  }

  return (
    <form className="invite-form" onSubmit={submit} noValidate aria-label="Invite a member">
      {errors.form === undefined ? null : <ErrorAlert message={errors.form} />}
      <TextField
        id="invite-email"
        label="Email"
        type="email"
        autoComplete="off"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={errors.email}
        inputRef={emailInput}
        maxLength={320}
      />
      <div className="field">
        <label htmlFor="invite-role">Role</label>
        <p id="invite-role-hint" className="field-hint">
          Admins also invite and remove members and change the team’s connections.
        </p>
        <select
          id="invite-role"
          value={role}
          onChange={(event) => setRole(event.target.value as AssignableRole)}
          aria-describedby={
            errors.role === undefined ? 'invite-role-hint' : 'invite-role-hint invite-role-error'
          }
          aria-invalid={errors.role === undefined ? undefined : true}
        >
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
        {errors.role === undefined ? null : (
          <p id="invite-role-error" className="field-error">
            {errors.role}
          </p>
        )}
      </div>
      <div className="form-actions">
        <button type="submit" className="button-primary">
          Invite
        </button>
        <p role="status" className="form-state">
          {sending ? 'Inviting…' : ''}
        </p>
      </div>
    </form>
  );
}

import { type FormEvent, useRef, useState } from 'react';
import { createAccessToken } from '../api/access-tokens';
import { ApiError, describeError } from '../api/http';
import type { NewAccessToken } from '../api/types';
import { fieldErrors } from '../format/field-errors';
import { ErrorAlert } from './ErrorAlert';
import { TextField } from './TextField';

/** The lifetimes offered, in days; `never`: no expiry. */
const EXPIRIES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'Never' },
] as const;
type Expiry = (typeof EXPIRIES)[number]['value'];

type Errors = { name?: string; expires?: string; form?: string };

/** A refused token as errors by field (a 422), else the service's words above the form. */
function createErrors(error: unknown): Errors {
  if (error instanceof ApiError && error.status === 422 && error.issues.length > 0) {
    const { byField, other } = fieldErrors(error.issues, ['name', 'expires_in_days'] as const);
    const found: Errors = { ...byField };
    if (byField.expires_in_days !== undefined) found.expires = byField.expires_in_days;
    return other.length === 0 ? found : { ...found, form: other.join(' ') };
  }
  return { form: describeError(error) };
}

/** Name a new personal access token and choose how long it lasts; the new token goes to `onCreated`. */
export function CreateTokenForm({ onCreated }: { onCreated: (token: NewAccessToken) => void }) {
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [errors, setErrors] = useState<Errors>({});
  const [creating, setCreating] = useState(false);
  const busy = useRef(false);
  const nameInput = useRef<HTMLInputElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // The button stays enabled (a disabled one would drop keyboard focus); a second press waits.
    if (busy.current) return;
    if (name.trim() === '') {
      setErrors({ name: 'Name the token after what will use it, such as “Nightly import”.' });
      nameInput.current?.focus();
      return;
    }
    busy.current = true;
    setCreating(true);
    setErrors({});
    try {
      const token = await createAccessToken(
        name.trim(),
        expiry === 'never' ? undefined : Number.parseInt(expiry, 10),
      );
      setName('');
      setExpiry('90');
      onCreated(token);
    } catch (error) {
      const found = createErrors(error);
      setErrors(found);
      if (found.name !== undefined) nameInput.current?.focus();
    } finally {
      busy.current = false;
      setCreating(false);
    }
  }

  return (
    <form className="token-form" onSubmit={submit} noValidate aria-label="Create an access token">
      {errors.form === undefined ? null : <ErrorAlert message={errors.form} />}
      <TextField
        id="token-name"
        label="Token name"
        type="text"
        autoComplete="off"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={errors.name}
        inputRef={nameInput}
        hint="What will use it, so you know which to revoke later."
        maxLength={200}
      />
      <div className="field">
        <label htmlFor="token-expires">Expires</label>
        <select
          id="token-expires"
          value={expiry}
          onChange={(event) => setExpiry(event.target.value as Expiry)}
          aria-describedby={errors.expires === undefined ? undefined : 'token-expires-error'}
          aria-invalid={errors.expires === undefined ? undefined : true}
        >
          {EXPIRIES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        {errors.expires === undefined ? null : (
          <p id="token-expires-error" className="field-error">
            {errors.expires}
          </p>
        )}
      </div>
      <div className="form-actions">
        <button type="submit" className="button-primary">
          Create token
        </button>
        <p role="status" className="form-state">
          {creating ? 'Creating…' : ''}
        </p>
      </div>
    </form>
  );
}

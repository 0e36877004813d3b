import { type FormEvent, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/http';
import { signIn } from '../api/session';
import type { CurrentUser } from '../api/types';
import { registerAndSignIn } from '../api/users';
import { ErrorAlert } from '../components/ErrorAlert';
import { TextField } from '../components/TextField';
import { fieldErrors } from '../format/field-errors';
import { useDocumentTitle } from '../hooks/useDocumentTitle';

type Field = 'email' | 'password' | 'name';
const FIELDS: readonly Field[] = ['email', 'password', 'name'];
type Errors = Partial<Record<Field, string>> & { form?: string };

const TAKEN_EMAIL = 'An account with this e-mail already exists. Sign in instead, or use another e-mail.';

/**
 * Sign in, or create an account, with an e-mail and a password: one form, two buttons. "Sign in"
 * (also what Enter does) ignores the name; "Create account" registers, then signs in with the same
 * password. Errors sit next to their field.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (user: CurrentUser) => void }) {
  useDocumentTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const inputs = {
    email: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    name: useRef<HTMLInputElement>(null),
  };

  function show(found: Errors) {
    setErrors(found);
    const first = FIELDS.find((field) => found[field] !== undefined);
    if (first !== undefined) inputs[first].current?.focus();
  }

  function createAccount(): Promise<CurrentUser> {
    return registerAndSignIn({ email, password, name: name.trim() });
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const creating = submitter instanceof HTMLButtonElement && submitter.value === 'create';
    const missing: Errors = {};
    if (email.trim() === '') missing.email = 'Enter your e-mail address.';
    if (password === '')
      missing.password = creating ? 'Choose a password of at least 8 characters.' : 'Enter your password.';
    if (missing.email !== undefined || missing.password !== undefined) {
      show(missing);
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      onSignedIn(creating ? await createAccount() : await signIn(email, password));
    } catch (error) {
      setBusy(false);
      show(errorsFor(error, creating));
    }
  }

  return (
    <>
      <header className="app-header">
        <span className="brand">Knowledge answers</span>
      </header>
      <main id="main" className="page sign-in-page">
        <h1>Sign in</h1>
        <p className="intro">Sign in with your e-mail and password, or create an account with them.</p>
        <form className="sign-in-form" onSubmit={submit} noValidate>
          {errors.form === undefined ? null : <ErrorAlert message={errors.form} />}
          <TextField
            id="email"
            label="Email"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={errors.email}
            inputRef={inputs.email}
            maxLength={320}
          />
          <TextField
            id="password"
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={errors.password}
            inputRef={inputs.password}
            hint="A new account needs at least 8 characters."
            maxLength={1024}
          />
          <TextField
            id="name"
            label="Name"
            type="text"
            autoComplete="name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={errors.name}
            inputRef={inputs.name}
            hint="Only for a new account; optional."
            maxLength={500}
          />
          <div className="form-actions">
            <button type="submit" name="action" value="sign-in" className="button-primary" disabled={busy}>
              Sign in
            </button>
            <button type="submit" name="action" value="create" className="button-secondary" disabled={busy}>
              Create account
            </button>
          </div>
        </form>
      </main>
    </>
  );
}

/** A failed sign-in or registration as errors by field, in words. */
function errorsFor(error: unknown, creating: boolean): Errors {
  if (!(error instanceof ApiError)) return { form: describeError(error) };
  if (error.status === 422 && error.issues.length > 0) {
    const { byField, other } = fieldErrors(error.issues, FIELDS);
    return other.length === 0 ? byField : { ...byField, form: other.join(' ') };
  }
  if (error.status === 409 && creating) return { email: TAKEN_EMAIL };
  // A wrong e-mail or password: the password is what to type again.
  if (error.status === 401) return { password: error.detail };
  return { form: error.detail };
}

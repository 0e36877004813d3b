import { type FormEvent, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/http';
import { signIn } from '../api/session';
import type { CurrentUser } from '../api/types';
import { registerAndSignIn } from '../api/users';
import { ErrorAlert } from '../components/ErrorAlert';
import { TextField } from '../components/TextField';
import { fieldErrors } from '../format/field-errors';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { Link } from '../router/Link';

type Field = 'email' | 'name' | 'password';
const FIELDS: readonly Field[] = ['email', 'name', 'password'];
type Errors = Partial<Record<Field, string>> & { form?: string };

const TAKEN_EMAIL =
  'An account with this e-mail already exists, and an invitation makes a new one. Sign in with it instead, or ask for an invitation to another e-mail.';

interface JoinPageProps {
  /** The invitation's code, from the link's `invitation` query parameter. */
  invitation: string | null;
  /** Who is signed in in this browser, if anyone: joining signs the new account in instead. */
  signedInAs: string | undefined;
  onJoined: (user: CurrentUser) => void;
}

/**
 * Where an invitation's link leads (`/join?invitation=<code>`), signed out: e-mail (the one invited),
 * name and password make the account, which joins the inviting team; then it is signed in as the
 * sign-in page does (a session cookie; the registration's bearer token revoked).
 */
export function JoinPage({ invitation, signedInAs, onJoined }: JoinPageProps) {
  useDocumentTitle('Join your team');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  // Registered, but signing in failed: a second press only signs in (registering again is a 409).
  const registered = useRef(false);
  const inputs = {
    email: useRef<HTMLInputElement>(null),
    name: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
  };
  const code = invitation?.trim() ?? '';

  function show(found: Errors) {
    setErrors(found);
    const first = FIELDS.find((field) => found[field] !== undefined);
    if (first !== undefined) inputs[first].current?.focus();
  }

  function join(): Promise<CurrentUser> {
    // Once the account exists, another try only signs in (the invitation is used up).
    if (registered.current) return signIn(email, password);
    return registerAndSignIn({ email, password, name: name.trim(), invitation: code }, () => {
      registered.current = true;
    });
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const missing: Errors = {};
    if (email.trim() === '') missing.email = 'Enter the e-mail address you were invited at.';
    if (password === '') missing.password = 'Choose a password of at least 8 characters.';
    if (missing.email !== undefined || missing.password !== undefined) {
      show(missing);
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      onJoined(await join());
    } catch (error) {
      setBusy(false);
      show(errorsFor(error, registered.current));
    }
  }

  return (
    <>
      <header className="app-header">
        <span className="brand">Knowledge answers</span>
      </header>
      <main id="main" className="page sign-in-page">
        <h1>Join your team</h1>
        {code === '' ? (
          <ErrorAlert message="This link has no invitation in it. Ask whoever invited you to send the link again, whole.">
            <p>
              <Link to="/">Sign in</Link> if you have an account.
            </p>
          </ErrorAlert>
        ) : (
          <>
            <p className="intro">
              You were invited to a team: create your account with the e-mail address the invitation was sent
              to, and you are in.
            </p>
            {signedInAs === undefined ? null : (
              <p className="muted">
                This browser is signed in as {signedInAs}: joining signs you in with the new account instead.
              </p>
            )}
            <form className="sign-in-form" onSubmit={submit} noValidate>
              {errors.form === undefined ? null : <ErrorAlert message={errors.form} />}
              <TextField
                id="join-email"
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
                id="join-name"
                label="Name"
                type="text"
                autoComplete="name"
                value={name}
                onChange={(event) => setName(event.target.value)}
                error={errors.name}
                inputRef={inputs.name}
                hint="How your team sees you."
                maxLength={500}
              />
              <TextField
                id="join-password"
                label="Password"
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(event) => setPassword(event.target.value)}
                error={errors.password}
                inputRef={inputs.password}
                hint="At least 8 characters."
                maxLength={1024}
              />
              <div className="form-actions">
                <button type="submit" className="button-primary" disabled={busy}>
                  Join team
                </button>
              </div>
            </form>
          </>
        )}
      </main>
    </>
  );
}

/** A failed registration or sign-in as errors by field, in words. */
function errorsFor(error: unknown, registered: boolean): Errors {
  if (!(error instanceof ApiError)) return { form: describeError(error) };
  if (registered) {
    return { form: `Your account was made, but signing in failed: ${error.detail} Press Join team again.` };
  }
  if (error.status === 422 && error.issues.length > 0) {
    const { byField, other } = fieldErrors(error.issues, FIELDS);
    return other.length === 0 ? byField : { ...byField, form: other.join(' ') };
  }
  if (error.status === 409) return { email: TAKEN_EMAIL };
  // 403: another e-mail than the invitation's, or a used, withdrawn or expired code, in the service's words.
  return { form: error.detail };
}

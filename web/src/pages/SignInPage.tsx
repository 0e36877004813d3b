import { type FormEvent, useEffect, useRef, useState } from 'react';
import { getSignInMethods } from '../api/auth-methods';
import { ApiError, describeError } from '../api/http';
import { signIn } from '../api/session';
import type { CurrentUser, SignInMethods } from '../api/types';
import { registerAndSignIn } from '../api/users';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { TextField } from '../components/TextField';
import { fieldErrors } from '../format/field-errors';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';
import { ssoStartHref } from '../lib/sso-start';
import { navigate, useLocation } from '../router/history';

type Field = 'email' | 'password' | 'name';
const FIELDS: readonly Field[] = ['email', 'password', 'name'];
type Errors = Partial<Record<Field, string>> & { form?: string };

const TAKEN_EMAIL = 'An account with this e-mail already exists. Sign in instead, or use another e-mail.';

/** Single sign-on failed, and the words for why could not be loaded either. */
const SSO_FAILED = 'Single sign-on did not work, so you were not signed in. Try again.';

/** A service that does not say (an older one, or the question failed): passwords, as ever. */
const PASSWORD_ONLY: SignInMethods = { password: true, oidc: null };

/**
 * Why single sign-on came back signed out (`?sso_error=<code>`), in words (loaded only then: the
 * first page need not carry them); the code leaves the address bar at once, so a reload or a
 * bookmark does not show it again.
 */
function useSsoError(): string | undefined {
  const [code] = useState(() => new URLSearchParams(window.location.search).get('sso_error'));
  const [words, setWords] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (code === null) return;
    const url = new URL(window.location.href);
    url.searchParams.delete('sso_error');
    navigate(url.pathname + url.search + url.hash, { replace: true });
    import('../format/sso-errors').then(
      (module) => setWords(module.ssoErrorWords(code)),
      () => setWords(SSO_FAILED),
    );
  }, [code]);
  return words;
}

function introFor(methods: SignInMethods): string {
  if (methods.oidc !== null && methods.password)
    return 'Sign in with your company account, or with your e-mail and password (or create an account with them).';
  if (methods.oidc !== null) return 'Sign in with your company account.';
  return 'Sign in with your e-mail and password, or create an account with them.';
}

/**
 * The sign-in page: the company's single sign-on (a link to the service's start URL, which sends
 * the browser to the provider and back), the e-mail and password form, or both, as the service
 * offers them; and why a single sign-on failed, when it did.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (user: CurrentUser) => void }) {
  useDocumentTitle('Sign in');
  const ssoError = useSsoError();
  const loaded = useLoader('sign-in-methods', getSignInMethods);
  const methods = loaded.state === 'failed' ? PASSWORD_ONLY : shownValue(loaded);
  // Signed out on another page (an MCP client's consent page): single sign-on comes back to it.
  const location = useLocation();
  const query = location.searchParams.toString();

  return (
    <>
      <header className="app-header">
        <span className="brand">Knowledge answers</span>
      </header>
      <main id="main" className="page sign-in-page">
        <h1>Sign in</h1>
        {ssoError === undefined ? null : <ErrorAlert message={ssoError} />}
        {methods === undefined ? (
          <Loading label="Loading…" />
        ) : (
          <>
            <p className="intro">{introFor(methods)}</p>
            {methods.oidc === null ? null : (
              <a
                className="button-primary sso-sign-in"
                href={ssoStartHref(
                  methods.oidc.start_url,
                  location.pathname,
                  query === '' ? '' : `?${query}`,
                )}
              >
                Sign in with {methods.oidc.name}
              </a>
            )}
            {methods.password ? <PasswordForm onSignedIn={onSignedIn} /> : null}
          </>
        )}
      </main>
    </>
  );
}

/**
 * Sign in, or create an account, with an e-mail and a password: one form, two buttons. "Sign in"
 * (also what Enter does) ignores the name; "Create account" registers, then signs in with the same
 * password. Errors sit next to their field.
 */
function PasswordForm({ onSignedIn }: { onSignedIn: (user: CurrentUser) => void }) {
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
    <form className="sign-in-form" onSubmit={submit} noValidate aria-label="Sign in with e-mail and password">
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

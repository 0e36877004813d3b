import { type FormEvent, useRef, useState } from 'react';
import { describeError } from '../api/http';
import { getTeamSettings, saveSignInDomains } from '../api/team-settings';
import { useLoader } from '../hooks/useLoader';
import { ErrorAlert, Loading } from './ErrorAlert';
import { TextField } from './TextField';

/** A domain as typed: `@Acme.com ` is `acme.com`. The service judges the rest (a 422 in words). */
function normalDomain(typed: string): string {
  return typed.trim().replace(/^@/, '').toLowerCase();
}

/**
 * The team's sign-in domains (owners and admins): whoever signs in with single sign-on from one of
 * them for the first time joins this team. Add one (only that of your own proven address), remove one.
 */
export function SignInDomainsSection() {
  const loaded = useLoader('team-settings', getTeamSettings);
  // What the last save answered: newer than what was loaded.
  const [saved, setSaved] = useState<readonly string[] | undefined>(undefined);
  const domains = saved ?? (loaded.state === 'loaded' ? loaded.value.sign_in_domains : undefined);
  const [domain, setDomain] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');
  const busy = useRef(false);
  const input = useRef<HTMLInputElement>(null);

  async function save(next: readonly string[], done: string, failed: string): Promise<boolean> {
    if (busy.current) return false;
    busy.current = true;
    setSaveError(undefined);
    try {
      setSaved((await saveSignInDomains(next)).sign_in_domains);
      setAnnouncement(done);
      return true;
    } catch (error) {
      setSaveError(`${failed}: ${describeError(error)}`);
      return false;
    } finally {
      busy.current = false;
    }
  }

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (domains === undefined) return;
    const typed = normalDomain(domain);
    setFieldError(undefined);
    if (typed === '') {
      setFieldError('Enter a domain, such as example.com.');
      input.current?.focus();
      return;
    }
    if (domains.includes(typed)) {
      setFieldError(`${typed} is already a sign-in domain of this team.`);
      input.current?.focus();
      return;
    }
    const added = await save([...domains, typed], `${typed} added.`, `${typed} was not added`);
    if (added) setDomain('');
    else input.current?.focus();
  }

  async function remove(removed: string) {
    if (domains === undefined) return;
    const done = await save(
      domains.filter((kept) => kept !== removed),
      `${removed} removed.`,
      `${removed} was not removed`,
    );
    // Its button is gone with it: focus goes to the field rather than nowhere.
    if (done) input.current?.focus();
  }

  return (
    // Named by nothing but its heading: `getByLabel('Sign-in domain')` must find the field alone.
    <section className="panel">
      <h2 id="sign-in-domains-heading">Sign-in domains</h2>
      <p className="intro">
        People who sign in with single sign-on from these domains for the first time join this team as
        members.
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {saveError === undefined ? null : <ErrorAlert message={saveError} />}
      {loaded.state === 'failed' ? (
        <ErrorAlert message={`The sign-in domains could not be loaded: ${loaded.message}`} />
      ) : null}
      {loaded.state === 'loading' ? <Loading label="Loading the sign-in domains…" /> : null}
      {domains === undefined ? null : (
        <>
          {domains.length === 0 ? (
            <p className="muted">No sign-in domains yet.</p>
          ) : (
            <ul className="sign-in-domains" aria-label="Claimed domains">
              {domains.map((listed) => (
                <li key={listed} className="sign-in-domain">
                  <span className="sign-in-domain-name">{listed}</span>
                  <button type="button" className="button-quiet" onClick={() => void remove(listed)}>
                    Remove<span className="visually-hidden"> {listed}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="sign-in-domain-form" onSubmit={add} noValidate>
            <TextField
              id="sign-in-domain"
              label="Sign-in domain"
              type="text"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              placeholder="example.com"
              value={domain}
              onChange={(event) => setDomain(event.target.value)}
              error={fieldError}
              inputRef={input}
              hint="Only the domain of your own e-mail address, once it is confirmed."
              maxLength={253}
            />
            <div className="form-actions">
              <button type="submit" className="button-primary">
                Add domain
              </button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}

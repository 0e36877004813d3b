import { type FormEvent, type RefObject, useRef, useState } from 'react';
import { type Connector, wikiSettings } from '../api/connectors';
import { type SavedWikiConnector, saveWikiConfig, type WikiForm, type WikiFormField } from '../api/wiki';
import {
  firstInvalidField,
  missingWikiFields,
  type WikiFormErrors,
  wikiFormErrors,
} from '../format/connectors';
import { ErrorAlert } from './ErrorAlert';
import { TextField } from './TextField';

function initialForm(connector: Connector | undefined): WikiForm {
  if (connector === undefined) return { site: '', email: '', apiToken: '', spaceKey: '' };
  const settings = wikiSettings(connector);
  return { site: settings.baseUrl, email: settings.username, apiToken: '', spaceKey: settings.spaceKey };
}

interface WikiConnectorFormProps {
  /** The team's Confluence connector, when there is one: its settings fill the form (never its token). */
  connector: Connector | undefined;
  /** The server has no wiki of its own (no WIKI_BASE_URL): the site must be given. */
  siteRequired: boolean;
  onSaved: (saved: SavedWikiConnector) => void;
}

/**
 * Site, e-mail, API token and space key; the site may be left empty only on a server with a wiki of
 * its own, and is marked required otherwise. The service checks them against Confluence before it saves
 * anything; its refusal is shown in its own words above the form, a 422's problems under their
 * fields. The token is sent once and forgotten: the form never shows a saved one.
 */
export function WikiConnectorForm({ connector, siteRequired, onSaved }: WikiConnectorFormProps) {
  const [form, setForm] = useState<WikiForm>(() => initialForm(connector));
  const [errors, setErrors] = useState<WikiFormErrors>({});
  const [saving, setSaving] = useState(false);
  const [savedMessage, setSavedMessage] = useState<string | undefined>(undefined);
  const busy = useRef(false);
  const inputs: Record<WikiFormField, RefObject<HTMLInputElement | null>> = {
    site: useRef<HTMLInputElement>(null),
    email: useRef<HTMLInputElement>(null),
    apiToken: useRef<HTMLInputElement>(null),
    spaceKey: useRef<HTMLInputElement>(null),
  };
  const connected = connector !== undefined;

  function change(field: WikiFormField, value: string) {
    setForm((current) => ({ ...current, [field]: value }));
  }

  function show(found: WikiFormErrors) {
    setErrors(found);
    const first = firstInvalidField(found);
    if (first !== undefined) inputs[first].current?.focus();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // The button stays enabled (a disabled one would drop keyboard focus); a second press waits.
    if (busy.current) return;
    setSavedMessage(undefined);
    const missing: WikiFormErrors = {
      ...missingWikiFields(form, connected),
      ...(siteRequired && form.site.trim() === '' ? { site: 'Enter your Confluence site’s address.' } : {}),
    };
    if (firstInvalidField(missing) !== undefined) {
      show(missing);
      return;
    }
    busy.current = true;
    setSaving(true);
    setErrors({});
    try {
      const saved = await saveWikiConfig(form);
      setForm((current) => ({ ...current, apiToken: '' }));
      const space = wikiSettings(saved).spaceKey;
      setSavedMessage(
        connected
          ? `Saved. A sync of space ${space} has started.`
          : `Connected to space ${space}. Its first sync has started.`,
      );
      onSaved(saved);
    } catch (error) {
      show(wikiFormErrors(error));
    } finally {
      busy.current = false;
      setSaving(false);
    }
  }

  return (
    <form className="connector-form" onSubmit={submit} noValidate aria-label="Confluence settings">
      {errors.form === undefined ? null : <ErrorAlert message={errors.form} />}
      <TextField
        id="wiki-site"
        label="Site"
        type="url"
        inputMode="url"
        autoComplete="url"
        placeholder="https://your-team.atlassian.net"
        hint={
          siteRequired
            ? 'Required: your Confluence address.'
            : 'Your Confluence address. Leave it empty to use the wiki this service is set up with.'
        }
        required={siteRequired}
        value={form.site}
        onChange={(event) => change('site', event.target.value)}
        error={errors.site}
        inputRef={inputs.site}
        maxLength={2048}
      />
      <TextField
        id="wiki-email"
        label="Email"
        type="email"
        autoComplete="off"
        hint="The Atlassian account's e-mail (Confluence Cloud). Leave it empty for a Data Center personal access token."
        value={form.email}
        onChange={(event) => change('email', event.target.value)}
        error={errors.email}
        inputRef={inputs.email}
        maxLength={320}
      />
      <TextField
        id="wiki-api-token"
        label="API token"
        type="password"
        // Not the sign-in password: a browser must not fill that in here.
        autoComplete="new-password"
        hint={
          connected
            ? 'Stored encrypted and never shown: enter it again to change the settings.'
            : 'Stored encrypted and never shown again.'
        }
        required
        value={form.apiToken}
        onChange={(event) => change('apiToken', event.target.value)}
        error={errors.apiToken}
        inputRef={inputs.apiToken}
        maxLength={8192}
      />
      <TextField
        id="wiki-space-key"
        label="Space key"
        type="text"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        hint="The short key in the space's address, such as ENG in …/wiki/spaces/ENG."
        required
        value={form.spaceKey}
        onChange={(event) => change('spaceKey', event.target.value)}
        error={errors.spaceKey}
        inputRef={inputs.spaceKey}
        maxLength={255}
      />
      <div className="form-actions">
        <button type="submit" className="button-primary">
          {connected ? 'Save' : 'Connect Confluence'}
        </button>
        <p role="status" className="form-state">
          {saving ? 'Checking with Confluence…' : (savedMessage ?? '')}
        </p>
      </div>
    </form>
  );
}

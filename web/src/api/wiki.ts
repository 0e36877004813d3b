import type { Connector } from './connectors';
import { requestJson } from './http';
import type { QueuedJob } from './types';

/** What a person types into the Confluence form. */
export interface WikiForm {
  /** The site's address; empty: the wiki the service is set up with (WIKI_BASE_URL), when it has one. */
  site: string;
  /** The Atlassian account's e-mail (Cloud); empty: the token is a Data Center personal access token. */
  email: string;
  apiToken: string;
  spaceKey: string;
}

export type WikiFormField = keyof WikiForm;

/** POST /v1/wiki/config's body fields, by the form field each comes from. */
export const WIKI_BODY_FIELDS: Readonly<Record<WikiFormField, string>> = {
  site: 'wikiBaseUrl',
  email: 'wikiUsername',
  apiToken: 'wikiApiToken',
  spaceKey: 'wikiSpaceKey',
};

export interface WikiConfigBody {
  wikiApiToken: string;
  wikiUsername: string;
  wikiSpaceKey: string;
  wikiBaseUrl?: string;
}

/** A site typed without its scheme (`acme.atlassian.net`) is an https one; anything else as typed. */
function siteAddress(typed: string): string {
  const site = typed.trim();
  if (site === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(site)) return site;
  return `https://${site}`;
}

/**
 * The request for a filled-in form: spaces around the values trimmed, a site without its scheme
 * taken as https, an empty site left out.
 */
export function wikiConfigBody(form: WikiForm): WikiConfigBody {
  const site = siteAddress(form.site);
  return {
    wikiApiToken: form.apiToken.trim(),
    wikiUsername: form.email.trim(),
    wikiSpaceKey: form.spaceKey.trim(),
    ...(site === '' ? {} : { wikiBaseUrl: site }),
  };
}

/** The saved connector, with its first sync's job. */
export type SavedWikiConnector = Connector & QueuedJob;

/**
 * POST /v1/wiki/config: the service checks the credentials and the space against Confluence, then
 * saves the team's connector (201, or 200 replacing it) and queues the space's sync. Its refusals
 * are ApiErrors in its own words (400 rejected credentials or unknown space, 502 unreachable, 422).
 */
export function saveWikiConfig(form: WikiForm): Promise<SavedWikiConnector> {
  return requestJson<SavedWikiConnector>('POST', '/v1/wiki/config', { body: wikiConfigBody(form) });
}

import { normaliseUrl } from '../config.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** The token proxy request (spec 2.10). */
export interface TokenProxyInput {
  endpoint: string;
  headers: {
    content_type: string;
    accept?: string | null;
    authorization?: string | null;
    x_connector?: string | null;
  };
  body?: string | null;
}

/** Names clients use in `x_connector`, by the key of the server-side credentials. */
const CONNECTOR_NAMES: Readonly<Record<string, string>> = {
  googledrive: 'googledrive',
  drive: 'googledrive',
  google: 'googledrive',
  wiki: 'wiki',
  confluence: 'wiki',
  atlassian: 'wiki',
  chatapp: 'chatapp',
  slack: 'chatapp',
  notion: 'notion',
  microsoft: 'microsoft',
};

/**
 * Makes a browser's OAuth token request for it, to allowlisted https endpoints only, adding the
 * server-side client credentials of the named connector so that secrets never reach browsers.
 */
export async function proxyTokenRequest(
  deps: ServiceDependencies,
  input: TokenProxyInput,
): Promise<{ status: number; body: unknown }> {
  const url = new URL(input.endpoint);
  if (url.protocol !== 'https:')
    throw new ServiceError('forbidden', 'Refused: only https token endpoints are allowed');
  const target = normaliseUrl(input.endpoint);
  if (!deps.config.oauthProxy.allowlist.includes(target)) {
    throw new ServiceError(
      'forbidden',
      `Refused: ${url.origin}${url.pathname} is not on the token proxy's allowlist`,
    );
  }
  const contentType = input.headers.content_type;
  const body = withClientCredentials(deps, target, contentType, input.headers.x_connector, input.body ?? '');
  const headers: Record<string, string> = {
    'content-type': contentType,
    accept: input.headers.accept ?? 'application/json',
    'user-agent': 'knowledge-answers-token-proxy',
  };
  if (input.headers.authorization) headers.authorization = input.headers.authorization;
  const response = await deps.tokenEndpoint.post({ url: new URL(target), headers, body });
  return { status: response.status, body: parseProviderBody(response.contentType, response.body) };
}

function withClientCredentials(
  deps: ServiceDependencies,
  target: string,
  contentType: string,
  connector: string | null | undefined,
  body: string,
): string {
  if (connector === undefined || connector === null || connector === '') return body;
  const name = connector.toLowerCase();
  const key = (Object.hasOwn(CONNECTOR_NAMES, name) ? CONNECTOR_NAMES[name] : undefined) ?? name;
  const { clientCredentials } = deps.config.oauthProxy;
  const credentials = Object.hasOwn(clientCredentials, key) ? clientCredentials[key] : undefined;
  if (credentials === undefined) return body;
  if (!credentials.tokenUrls.includes(target)) {
    throw new ServiceError(
      'forbidden',
      `Refused: the ${key} client credentials are not for this token endpoint`,
    );
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(body);
    form.set('client_id', credentials.clientId);
    form.set('client_secret', credentials.clientSecret);
    return form.toString();
  }
  if (mediaType === 'application/json') {
    let parsed: unknown;
    try {
      parsed = body === '' ? {} : JSON.parse(body);
    } catch {
      throw new ServiceError('bad_request', 'body is not JSON although headers.content_type says it is');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ServiceError('bad_request', 'body must be a JSON object to carry client credentials');
    }
    return JSON.stringify({
      ...parsed,
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    });
  }
  throw new ServiceError(
    'bad_request',
    'Client credentials can be added to form-encoded or JSON bodies only (headers.content_type)',
  );
}

function parseProviderBody(contentType: string | undefined, body: Buffer): unknown {
  const text = body.toString('utf8');
  if (contentType?.toLowerCase().includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ServiceError('bad_gateway', 'The token endpoint answered with a body that is not JSON');
  }
}

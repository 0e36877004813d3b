import { ApiError, requestJson } from './http';

/** GET /v1/oauth/providers: the public halves of the OAuth clients the server has; null when it has none. */
export interface OAuthProviders {
  google_drive: {
    client_id: string;
    authorize_url: string;
    token_url: string;
    redirect_uri: string;
    scope: string;
  } | null;
  slack: {
    client_id: string;
    authorize_url: string;
    redirect_uri: string | null;
    scope: string;
  } | null;
}

export function getOAuthProviders(signal?: AbortSignal): Promise<OAuthProviders> {
  return requestJson<OAuthProviders>('GET', '/v1/oauth/providers', signal === undefined ? {} : { signal });
}

/**
 * Exchanges Google's authorization code for an access token through the service's token proxy
 * (POST /v1/oauth-proxy/token), which adds the client secret: the browser never has it, and
 * talks to no origin but the service's.
 */
export async function exchangeGoogleCode(
  google: NonNullable<OAuthProviders['google_drive']>,
  code: string,
  verifier: string,
): Promise<string> {
  let answer: { access_token?: unknown };
  try {
    answer = await requestJson<{ access_token?: unknown }>('POST', '/v1/oauth-proxy/token', {
      body: {
        endpoint: google.token_url,
        headers: { content_type: 'application/x-www-form-urlencoded', x_connector: 'googledrive' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: google.redirect_uri,
        }).toString(),
      },
    });
  } catch (error) {
    // Google's own refusal (an expired or used code) comes back with its status: not ours to explain.
    if (error instanceof ApiError && (error.status === 400 || error.status === 401)) {
      throw new ApiError(
        error.status,
        'Google refused the sign-in (the code expired or was used); connect again.',
      );
    }
    throw error;
  }
  if (typeof answer.access_token !== 'string' || answer.access_token === '') {
    throw new Error('Google sent no access token; connect again.');
  }
  return answer.access_token;
}

export interface SlackInstallation {
  status: 'installed';
  connector_id: number;
  slack_team_id: string;
  slack_team_name: string | null;
}

/** POST /v1/chatapp/install: the bot installed for the team with the code Slack's redirect brought. */
export function installSlackApp(code: string): Promise<SlackInstallation> {
  return requestJson<SlackInstallation>('POST', '/v1/chatapp/install', { body: { code } });
}

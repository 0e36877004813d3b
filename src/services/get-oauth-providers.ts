import type { ServiceDependencies } from './dependencies.js';

/** What a browser needs to start Google's authorization-code flow (with PKCE) for Drive. */
export interface GoogleDriveAuthorization {
  readonly client_id: string;
  readonly authorize_url: string;
  /** Exchange the code here through `POST /v1/oauth-proxy/token` with `x_connector: googledrive`. */
  readonly token_url: string;
  readonly redirect_uri: string;
  readonly scope: string;
}

/** What a browser needs to send a user to Slack's "Add to Slack" (OAuth v2 install). */
export interface SlackAuthorization {
  readonly client_id: string;
  readonly authorize_url: string;
  /** SLACK_REDIRECT_URI; null: Slack uses the app's configured redirect URL. */
  readonly redirect_uri: string | null;
  readonly scope: string;
}

/**
 * The OAuth clients this server is configured with, public parts only (client ids, never
 * secrets); a provider without server-side credentials is null, so the app offers no button that
 * could not work.
 */
export function getOAuthProviders(deps: ServiceDependencies): {
  google_drive: GoogleDriveAuthorization | null;
  slack: SlackAuthorization | null;
} {
  const google = deps.config.googleDrive.oauth;
  const slack = deps.config.slack;
  return {
    google_drive:
      google === undefined
        ? null
        : {
            client_id: google.clientId,
            authorize_url: google.authorizeUrl,
            token_url: google.tokenUrl,
            redirect_uri: google.redirectUri,
            scope: google.scope,
          },
    slack:
      slack.clientId === undefined || deps.slackOAuth === undefined
        ? null
        : {
            client_id: slack.clientId,
            authorize_url: slack.authorizeUrl,
            redirect_uri: slack.redirectUri ?? null,
            scope: slack.botScopes,
          },
  };
}

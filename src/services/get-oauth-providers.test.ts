import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ENV, type TestApp } from '../../test/helpers/test-app.js';
import { parseConfig } from '../config.js';
import { getOAuthProviders } from './get-oauth-providers.js';

const GOOGLE_CLIENT_ID = 'providers-test.apps.googleusercontent.example';
const GOOGLE_CLIENT_SECRET = 'GOCSPX-providers-test-secret';
const SLACK_CLIENT_ID = '9999999999.1212121212';
const SLACK_CLIENT_SECRET = 'providers-test-slack-secret';

describe('getOAuthProviders', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({
      env: {
        PUBLIC_URL: 'https://knowledge.example',
        GOOGLE_CLIENT_ID,
        GOOGLE_CLIENT_SECRET,
        SLACK_CLIENT_ID,
        SLACK_CLIENT_SECRET,
        SLACK_REDIRECT_URI: 'https://knowledge.example/connectors/slack/callback',
      },
    });
  });
  afterAll(() => testApp.close());

  it('tells the configured clients’ public parts, never a secret', () => {
    const providers = getOAuthProviders(testApp.runtime.deps);
    expect(providers).toEqual({
      google_drive: {
        client_id: GOOGLE_CLIENT_ID,
        authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
        token_url: 'https://oauth2.googleapis.com/token',
        redirect_uri: 'https://knowledge.example/connectors/google-drive/callback',
        scope: 'https://www.googleapis.com/auth/drive.readonly',
      },
      slack: {
        client_id: SLACK_CLIENT_ID,
        authorize_url: 'https://slack.com/oauth/v2/authorize',
        redirect_uri: 'https://knowledge.example/connectors/slack/callback',
        scope:
          'app_mentions:read,channels:history,chat:write,groups:history,im:history,mpim:history,users:read,users:read.email',
      },
    });
    const text = JSON.stringify(providers);
    expect(text).not.toContain(GOOGLE_CLIENT_SECRET);
    expect(text).not.toContain(SLACK_CLIENT_SECRET);
  });

  it('answers null for a provider the service has no credentials for', () => {
    const { deps } = testApp.runtime;
    const unconfigured = { ...deps, config: parseConfig({ ...TEST_ENV }), slackOAuth: undefined };
    expect(getOAuthProviders(unconfigured)).toEqual({ google_drive: null, slack: null });
  });
});

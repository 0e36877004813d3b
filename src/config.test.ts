import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_OAUTH_PROXY_ALLOWLIST, parseConfig } from './config.js';

describe('parseConfig', () => {
  it('runs embedded with no settings at all', () => {
    const config = parseConfig({});
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/\/data$/);
    // The project's web build, not the working folder's: `npm start` may run from anywhere.
    expect(config.webDir).toBe(path.resolve(import.meta.dirname, '../dist/web'));
    expect(parseConfig({ WEB_DIR: 'elsewhere/web' }).webDir).toBe(path.resolve('elsewhere/web'));
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.passwordScryptLogN).toBe(17);
    expect(config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(config.oauthProxy.allowlist).toEqual(DEFAULT_OAUTH_PROXY_ALLOWLIST);
    expect(config.oauthProxy.allowPrivateNetwork).toBe(false);
    expect(config.oauthProxy.timeoutMs).toBe(10_000);
  });

  it('lists every invalid setting at once', () => {
    let thrown: unknown;
    try {
      parseConfig({
        PORT: '99999',
        DATABASE_URL: 'mysql://x',
        ENCRYPTION_KEY: 'short',
        REGISTRATION_SECRET: 'tiny',
        SLACK_CLIENT_ID: 'id-only',
        OAUTH_PROXY_ALLOWLIST: 'https://ok.example/token, not a url',
        OAUTH_PROXY_CLIENT_CREDENTIALS: '{"custom":{"client_id":"a","client_secret":"b"}}',
        LOG_LEVEL: 'chatty',
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems.join('\n');
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'ENCRYPTION_KEY',
      'REGISTRATION_SECRET',
      'SLACK_CLIENT_ID',
      'OAUTH_PROXY_ALLOWLIST',
      'OAUTH_PROXY_CLIENT_CREDENTIALS.custom',
      'LOG_LEVEL',
    ]) {
      expect(problems).toContain(name);
    }
  });

  it('has the security limits on by default, mail off, and links to where the service listens', () => {
    const config = parseConfig({ HOST: '0.0.0.0', PORT: '9000' });
    expect(config.smtp).toBeUndefined();
    expect(config.publicUrl).toBe('http://127.0.0.1:9000');
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.docsPublic).toBe(true);
    expect(config.indexing.parseTimeoutMs).toBe(60_000);
    expect(config.indexing.maxUncompressedBytes).toBe(32 * 1024 * 1024);
    expect(config.indexing.parseMemoryMb).toBeUndefined();
    expect(parseConfig({ INDEX_PARSE_MEMORY_MB: '1024' }).indexing.parseMemoryMb).toBe(1024);
    expect(config.authLimits).toEqual({
      failuresPerAccount: 5,
      failuresPerAddress: 20,
      maxBlockSeconds: 900,
      registrationsPerHourPerAddress: 20,
      oauthClientRegistrationsPerHourPerAddress: 20,
      passwordHashConcurrency: 2,
      passwordHashQueue: 64,
    });
    const mailing = parseConfig({
      SMTP_URL: 'smtps://u:p@mail.example.com',
      PUBLIC_URL: 'https://kb.example.com/',
    });
    expect(mailing.smtp).toEqual({
      url: 'smtps://u:p@mail.example.com',
      from: 'knowledge-answers <no-reply@kb.example.com>',
    });
    expect(mailing.publicUrl).toBe('https://kb.example.com');
    expect(() => parseConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL/);
  });

  it('requires a shared ENCRYPTION_KEY with DATABASE_URL, in hex or base64', () => {
    expect(() => parseConfig({ DATABASE_URL: 'postgres://localhost/db' })).toThrow(
      /ENCRYPTION_KEY is required/,
    );
    const hex = parseConfig({ DATABASE_URL: 'postgres://localhost/db', ENCRYPTION_KEY: '00'.repeat(32) });
    expect(hex.encryptionKey?.length).toBe(32);
    const base64 = parseConfig({ ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(base64.encryptionKey?.equals(Buffer.alloc(32, 7))).toBe(true);
  });

  it('binds client credentials to their token endpoints', () => {
    const config = parseConfig({
      SLACK_CLIENT_ID: 'slack-id',
      SLACK_CLIENT_SECRET: 'slack-secret',
      OAUTH_PROXY_CLIENT_CREDENTIALS: JSON.stringify({
        googledrive: { client_id: 'g', client_secret: 'gs' },
        custom: { client_id: 'c', client_secret: 'cs', token_url: 'https://idp.example/Token' },
      }),
    });
    expect(config.oauthProxy.clientCredentials.googledrive?.tokenUrls).toEqual([
      'https://oauth2.googleapis.com/token',
    ]);
    expect(config.oauthProxy.clientCredentials.custom?.tokenUrls).toEqual(['https://idp.example/Token']);
    expect(config.oauthProxy.clientCredentials.chatapp?.clientId).toBe('slack-id');
  });

  it('offers the web app Google Drive and "Add to Slack" only with their client ids and secrets', () => {
    const none = parseConfig({});
    expect(none.googleDrive.oauth).toBeUndefined();
    expect(none.slack.authorizeUrl).toBe('https://slack.com/oauth/v2/authorize');
    expect(() => parseConfig({ GOOGLE_CLIENT_ID: 'only-the-id' })).toThrow(
      'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together',
    );
    const google = parseConfig({
      PUBLIC_URL: 'https://answers.acme.example/',
      GOOGLE_CLIENT_ID: 'web-id',
      GOOGLE_CLIENT_SECRET: 'web-secret',
      GOOGLE_TOKEN_URL: 'https://oauth.internal.example/token',
    });
    expect(google.googleDrive.oauth).toEqual({
      clientId: 'web-id',
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth.internal.example/token',
      redirectUri: 'https://answers.acme.example/connectors/google-drive/callback',
      scope: 'https://www.googleapis.com/auth/drive.readonly',
    });
    // The configured token endpoint is one the proxy may call, with these credentials only.
    expect(google.oauthProxy.allowlist).toContain('https://oauth.internal.example/token');
    expect(google.oauthProxy.clientCredentials.googledrive).toEqual({
      clientId: 'web-id',
      clientSecret: 'web-secret',
      tokenUrls: ['https://oauth.internal.example/token'],
    });
  });

  it('defaults to one process doing everything, lexical only, and reads the role from --role or ROLE', () => {
    const config = parseConfig({});
    expect(config.role).toBe('all');
    expect(config.embeddings.provider).toBe('none');
    expect(config.wiki.allowedHosts).toEqual(['*.atlassian.net']);
    expect(config.wiki.allowPrivateNetwork).toBe(false);
    expect(config.googleDrive.apiUrl).toBe('https://www.googleapis.com/');
    expect(parseConfig({ ROLE: 'worker' }).role).toBe('worker');
    expect(parseConfig({ ROLE: 'worker' }, ['--role=api']).role).toBe('api');
    expect(parseConfig({ GOOGLE_DRIVE_API_URL: 'http://127.0.0.1:9/' }).googleDrive.apiUrl).toBe(
      'http://127.0.0.1:9/',
    );
  });

  it('refuses an unknown role, an OpenAI provider without a model, and bad wiki hosts, all at once', () => {
    let thrown: unknown;
    try {
      parseConfig(
        {
          EMBEDDING_PROVIDER: 'openai',
          WIKI_ALLOWED_HOSTS: 'ok.example, bad host!',
          EMBEDDING_DIMENSIONS: '0',
        },
        ['--role=both'],
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems.join('\n');
    for (const name of ['ROLE', 'EMBEDDING_MODEL', 'WIKI_ALLOWED_HOSTS', 'EMBEDDING_DIMENSIONS']) {
      expect(problems).toContain(name);
    }
  });

  it('signs in with passwords only by default, and with OpenID Connect once issuer and client id are set', () => {
    const plain = parseConfig({});
    expect(plain.signIn).toEqual({ password: true, providerName: 'SSO', oidc: undefined });

    const config = parseConfig({
      PUBLIC_URL: 'https://answers.example.com/',
      OIDC_ISSUER: 'https://accounts.google.com',
      OIDC_CLIENT_ID: 'client-1',
      OIDC_CLIENT_SECRET: 'secret-1',
      OIDC_DISPLAY_NAME: 'Google',
      PASSWORD_SIGN_IN: 'false',
    });
    expect(config.signIn).toEqual({
      password: false,
      providerName: 'Google',
      oidc: {
        issuer: 'https://accounts.google.com',
        clientId: 'client-1',
        clientSecret: 'secret-1',
        scopes: 'openid email profile',
        redirectUri: 'https://answers.example.com/v1/auth/oidc/callback',
      },
    });
    // A public client (no secret), its own scopes and redirect URI; plain http on a loopback address.
    const local = parseConfig({
      OIDC_ISSUER: 'http://127.0.0.1:8080/realms/acme',
      OIDC_CLIENT_ID: 'knowledge',
      OIDC_SCOPES: 'openid  email',
      OIDC_REDIRECT_URI: 'http://localhost:5173/v1/auth/oidc/callback',
    }).signIn.oidc;
    expect(local).toEqual({
      issuer: 'http://127.0.0.1:8080/realms/acme',
      clientId: 'knowledge',
      clientSecret: undefined,
      scopes: 'openid email',
      redirectUri: 'http://localhost:5173/v1/auth/oidc/callback',
    });
    for (const issuer of ['http://localhost:8080', 'http://[::1]:8080', 'http://127.1.2.3']) {
      expect(parseConfig({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'c' }).signIn.oidc?.issuer).toBe(issuer);
    }
  });

  it('refuses a plain http issuer off the loopback address, half a client, and other OIDC mistakes, all at once', () => {
    const problemsOf = (env: Record<string, string>): string => {
      try {
        parseConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems.join('\n');
      }
      throw new Error('expected a ConfigError');
    };
    const problems = problemsOf({
      OIDC_ISSUER: 'http://sso.internal.example',
      OIDC_CLIENT_ID: 'client',
      PASSWORD_SIGN_IN: 'maybe',
      PORT: '99999',
    });
    expect(problems).toContain('OIDC_ISSUER must be https');
    expect(problems).toContain('PASSWORD_SIGN_IN');
    // Reported with the other settings' problems, not one at a time.
    expect(problems).toContain('PORT');
    for (const issuer of [
      'http://10.0.0.5',
      'http://192.168.1.10:8080',
      'http://sso.localhost.example.com',
    ]) {
      expect(problemsOf({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'c' })).toContain('OIDC_ISSUER must be https');
    }
    expect(problemsOf({ OIDC_ISSUER: 'https://sso.example.com' })).toContain(
      'OIDC_ISSUER and OIDC_CLIENT_ID must be set together',
    );
    expect(problemsOf({ OIDC_CLIENT_ID: 'client' })).toContain(
      'OIDC_ISSUER and OIDC_CLIENT_ID must be set together',
    );
    expect(problemsOf({ OIDC_CLIENT_SECRET: 'lonely' })).toContain('OIDC_CLIENT_SECRET needs OIDC_ISSUER');
    expect(problemsOf({ OIDC_ISSUER: 'ftp://sso.example.com', OIDC_CLIENT_ID: 'c' })).toContain(
      'OIDC_ISSUER must be an https URL',
    );
    expect(problemsOf({ OIDC_ISSUER: 'https://sso.example.com/?tenant=1', OIDC_CLIENT_ID: 'c' })).toContain(
      'no query or fragment',
    );
    expect(
      problemsOf({
        OIDC_ISSUER: 'https://sso.example.com',
        OIDC_CLIENT_ID: 'c',
        OIDC_SCOPES: 'email profile',
      }),
    ).toContain('OIDC_SCOPES must include openid');
    expect(
      problemsOf({ OIDC_ISSUER: 'https://sso.example.com', OIDC_CLIENT_ID: 'c', OIDC_REDIRECT_URI: 'nope' }),
    ).toContain('OIDC_REDIRECT_URI');
    // Turning passwords off with no other way in locks everyone out.
    expect(problemsOf({ PASSWORD_SIGN_IN: 'false' })).toContain('PASSWORD_SIGN_IN=false needs OIDC_ISSUER');
    expect(
      parseConfig({ PASSWORD_SIGN_IN: 'false', REGISTRATION_SECRET: 'x'.repeat(32) }).signIn.password,
    ).toBe(false);
  });
});

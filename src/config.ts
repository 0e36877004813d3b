import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_NICENESS } from './process-priority.js';

/** What a process runs: the HTTP API, the background job worker, or both (the default). */
export type ServiceRole = 'all' | 'api' | 'worker';

export type EmbeddingProvider = 'none' | 'openai' | 'hashing';

/** Who writes answers: sentences chosen from the sources (no model needed), or a chat-completions LLM. */
export type AnswererKind = 'extractive' | 'llm';

/** The service's whole configuration, parsed once at start from the environment. */
export interface Config {
  readonly role: ServiceRole;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** PGLITE_THREAD: the embedded database in a worker thread of its own (HTTP never waits behind a statement). */
  readonly pgliteThread: boolean;
  /** `postgres://…` for real PostgreSQL; undefined runs the embedded PGlite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /** HTTP server processes sharing the port (PostgreSQL only: PGlite serves one process). */
  readonly apiProcesses: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** 32-byte key for AES-256-GCM; undefined in embedded mode means "generate one into dataDir". */
  readonly encryptionKey: Buffer | undefined;
  readonly registrationSecret: string | undefined;
  readonly accessTokenTtlSeconds: number;
  /** How long a process may answer "who is this token?" from memory; 0 asks the database every time. */
  readonly authCacheTtlSeconds: number;
  /** log2 of scrypt's N. OWASP: 17. Lower only for tests. */
  readonly passwordScryptLogN: number;
  readonly bodyLimitBytes: number;
  /** Longest a client may take to send one whole request (headers and body); then 408. */
  readonly requestTimeoutMs: number;
  /** Longest a connection may stay silent (no byte either way) before it is closed. */
  readonly connectionTimeoutMs: number;
  readonly trustProxy: boolean;
  /** Whether `/docs` and `/openapi.json` are open to anyone (true) or need sign-in. */
  readonly docsPublic: boolean;
  /** The built web app served at `/` (Vite's output: index.html and assets/). */
  readonly webDir: string;
  /** The address people reach this service at, for links in e-mails (`http://HOST:PORT` by default). */
  readonly publicUrl: string;
  /** Outgoing mail (verification and reset links); undefined: no mail, accounts stay unverified. */
  readonly smtp: { readonly url: string; readonly from: string } | undefined;
  readonly authLimits: {
    /** Wrong passwords for one account before each further one blocks it, doubling from 1 s. */
    readonly failuresPerAccount: number;
    /** Wrong passwords from one client address before each further one blocks the address. */
    readonly failuresPerAddress: number;
    /** The longest such a block lasts. */
    readonly maxBlockSeconds: number;
    /** Registrations (without the front end's secret) one client address may make per hour; 0: no limit. */
    readonly registrationsPerHourPerAddress: number;
    /** OAuth clients (MCP clients' dynamic registration) one client address may register per hour; 0: no limit. */
    readonly oauthClientRegistrationsPerHourPerAddress: number;
    /** Password hashes (scrypt, 128 MiB each at the default cost) computed at once. */
    readonly passwordHashConcurrency: number;
    /** Password checks waiting for a turn; more are refused with 503 and Retry-After. */
    readonly passwordHashQueue: number;
  };
  readonly shutdownTimeoutMs: number;
  /**
   * WORKER_NICENESS: the CPU priority a `--role=worker` process gives itself (1 to 19; 0 leaves it
   * as started), so that on a shared machine indexing yields the CPU to processes answering requests.
   */
  readonly workerNiceness: number;
  /** How people sign in: passwords, a company's OpenID Connect provider, or both. */
  readonly signIn: {
    /** PASSWORD_SIGN_IN: false refuses password sign-in, sign-up and resets (the front end's registration still works). */
    readonly password: boolean;
    /** OIDC_DISPLAY_NAME: what the sign-in page and messages call the provider ("Sign in with <name>"). */
    readonly providerName: string;
    /** Single sign-on with OpenID Connect; undefined without OIDC_ISSUER. */
    readonly oidc: OidcSettings | undefined;
  };
  readonly slack: {
    readonly clientId: string | undefined;
    readonly clientSecret: string | undefined;
    readonly redirectUri: string | undefined;
    readonly signingSecret: string | undefined;
    readonly apiUrl: string;
    /** Where "Add to Slack" sends the browser (OAuth v2 install). */
    readonly authorizeUrl: string;
    /** The bot scopes an installation asks for. */
    readonly botScopes: string;
  };
  readonly wikiBaseUrl: string | undefined;
  readonly oauthProxy: {
    readonly allowlist: readonly string[];
    readonly allowPrivateNetwork: boolean;
    readonly timeoutMs: number;
    readonly maxResponseBytes: number;
    readonly caFile: string | undefined;
    readonly clientCredentials: Readonly<Record<string, OAuthClientCredentials>>;
  };
  readonly chats: {
    readonly maxMessages: number;
    readonly maxMessageChars: number;
  };
  readonly indexing: {
    /** Index jobs one worker process runs at once. */
    readonly jobConcurrency: number;
    /** Files one index job fetches and indexes at once. */
    readonly fileConcurrency: number;
    /** Worker threads that parse and chunk files off the main thread. */
    readonly parseThreads: number;
    /** Memory all parse threads together may hold (MiB; undefined: the parse pool's default, 576). */
    readonly parseMemoryMb: number | undefined;
    /** Largest file downloaded from a source; larger ones are skipped as `too_large`. */
    readonly maxFileBytes: number;
    /** How long one file's parse may take before its thread is replaced and the file fails `parse_timeout`. */
    readonly parseTimeoutMs: number;
    /** Most bytes an archive-based file (DOCX) may inflate to, all entries together; beyond it `too_large`. */
    readonly maxUncompressedBytes: number;
    /** Time-out of one request to a source (Drive, wiki). */
    readonly sourceTimeoutMs: number;
    /** Most documents one JSON upload may carry. */
    readonly uploadMaxDocuments: number;
    /** Largest upload request body (JSON batch or multipart file). */
    readonly uploadMaxBytes: number;
  };
  readonly googleDrive: {
    readonly apiUrl: string;
    /** What the web app needs to run Google's authorization-code flow; undefined without client credentials. */
    readonly oauth: GoogleDriveOAuth | undefined;
    /**
     * Minutes between re-syncs of each Drive connector's files and permissions with the indexing
     * users' stored refresh tokens (needs GOOGLE_CLIENT_ID/SECRET); 0 turns them off.
     */
    readonly syncIntervalMinutes: number;
  };
  readonly wiki: {
    /** Host names (or `*.suffix` patterns) a user-given wiki address may have; WIKI_BASE_URL's host is always allowed. */
    readonly allowedHosts: readonly string[];
    /** Let user-given wiki addresses resolve to private, loopback and link-local addresses. */
    readonly allowPrivateNetwork: boolean;
    /** Minutes between automatic syncs of each wiki connector; 0 turns them off. */
    readonly syncIntervalMinutes: number;
  };
  readonly embeddings: {
    readonly provider: EmbeddingProvider;
    readonly baseUrl: string;
    readonly model: string;
    readonly apiKey: string | undefined;
    readonly dimensions: number | undefined;
    readonly batchSize: number;
    readonly concurrency: number;
    readonly timeoutMs: number;
  };
  readonly search: {
    /**
     * Weight of the vector ranking against the lexical one in reciprocal rank fusion (lexical
     * weighs 1). 0, the default, keeps vectors out of the ranking and lets them only fill in
     * below BM25's matches: the one embedder measurable here (bench/eval-scifact) lowers nDCG at
     * every weight above 0, and an unmeasured model must not drag BM25 down. Raise it once
     * bench/eval-scifact shows your model helps.
     */
    readonly denseWeight: number;
    /** RRF's k: how flat the rank curve is (60 in Cormack et al.). */
    readonly rrfK: number;
    /** HNSW candidates a vector query considers (pgvector's `hnsw.ef_search`). */
    readonly efSearch: number;
    /**
     * Memory each process may give teams' lexical postings, so BM25 ranks in memory
     * (retrieval/lexical-index); 0 ranks every search in the database.
     */
    readonly memoryIndexBytes: number;
  };
  readonly answering: {
    readonly answerer: AnswererKind;
    /** Passages retrieved and numbered for one answer. */
    readonly passages: number;
    /** Earlier messages of the same chat given as conversation memory. */
    readonly memoryMessages: number;
    readonly llm: {
      readonly baseUrl: string;
      readonly apiKey: string | undefined;
      readonly model: string;
      readonly timeoutMs: number;
      readonly maxTokens: number;
      readonly temperature: number;
    };
  };
}

/** The company's OpenID Connect provider, as the operator configured it. */
export interface OidcSettings {
  /** The issuer identifier, exactly as the provider's ID tokens name it (discovery under it). */
  readonly issuer: string;
  readonly clientId: string;
  /** Undefined for a public client, which proves itself by PKCE alone. */
  readonly clientSecret: string | undefined;
  /** Space-separated, `openid` among them. */
  readonly scopes: string;
  /** Where the provider sends the browser back: `<PUBLIC_URL>/v1/auth/oidc/callback` unless set. */
  readonly redirectUri: string;
}

export interface OAuthClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The only token endpoints these credentials may be sent to. */
  readonly tokenUrls: readonly string[];
}

/** Google's OAuth authorization-code flow with PKCE, as the web app runs it for Drive. */
export interface GoogleDriveOAuth {
  /** Public: sent to the browser. The secret stays in `oauthProxy.clientCredentials.googledrive`. */
  readonly clientId: string;
  readonly authorizeUrl: string;
  /** Where the code is exchanged, through `/v1/oauth-proxy/token` (so it is on the allowlist). */
  readonly tokenUrl: string;
  readonly redirectUri: string;
  readonly scope: string;
}

/** Read-only: the service indexes Drive, it never changes it. */
export const GOOGLE_DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';

/**
 * What the bot needs: mentions, its replies, direct messages, who asked, and the threads it is asked
 * in (`*:history`: earlier turns of a thread are a follow-up's memory).
 */
const DEFAULT_SLACK_BOT_SCOPES =
  'app_mentions:read,channels:history,chat:write,groups:history,im:history,mpim:history,users:read,users:read.email';

export const DEFAULT_OAUTH_PROXY_ALLOWLIST: readonly string[] = [
  'https://oauth2.googleapis.com/token',
  'https://slack.com/api/oauth.v2.access',
  'https://slack.com/api/openid.connect.token',
  'https://auth.atlassian.com/oauth/token',
  'https://api.notion.com/v1/oauth/token',
  'https://login.microsoftonline.com/common/oauth2/v2.0/token',
];

/** Token endpoints a connector's server-side client credentials default to. */
const DEFAULT_TOKEN_URLS: Readonly<Record<string, readonly string[]>> = {
  googledrive: ['https://oauth2.googleapis.com/token'],
  chatapp: ['https://slack.com/api/oauth.v2.access', 'https://slack.com/api/openid.connect.token'],
  wiki: ['https://auth.atlassian.com/oauth/token'],
  notion: ['https://api.notion.com/v1/oauth/token'],
  microsoft: ['https://login.microsoftonline.com/common/oauth2/v2.0/token'],
};

/**
 * `dist/web` of this project, wherever it is started from: this file runs as src/config.ts (tsx,
 * tests) or as dist/src/config.js (npm start).
 */
const DEFAULT_WEB_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../dist/web' : '../web', import.meta.url),
);

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads every setting, collecting all problems before failing once. `--role=api|worker|all` on
 * the command line overrides `ROLE`.
 */
export function parseConfig(env: Environment, argv: readonly string[] = []): Config {
  const problems: string[] = [];
  const read = new SettingReader(env, problems);
  const roleArgument = argv.find((argument) => argument.startsWith('--role='))?.slice('--role='.length);
  const role = read.oneOf('ROLE', ['all', 'api', 'worker'], 'all', roleArgument);
  const embeddingProvider = read.oneOf('EMBEDDING_PROVIDER', ['none', 'openai', 'hashing'], 'none');
  const embeddingModel = read.optionalString('EMBEDDING_MODEL');
  if (embeddingProvider === 'openai' && embeddingModel === undefined) {
    problems.push('EMBEDDING_MODEL is required with EMBEDDING_PROVIDER=openai (e.g. text-embedding-3-small)');
  }
  const wikiBaseUrl = read.optionalUrl('WIKI_BASE_URL');
  const llmModel = read.optionalString('LLM_MODEL');
  // Setting LLM_MODEL is asking for LLM answers; ANSWERER=extractive keeps the extractive one.
  const answerer = read.oneOf(
    'ANSWERER',
    ['extractive', 'llm'],
    llmModel === undefined ? 'extractive' : 'llm',
  );
  if (answerer === 'llm' && llmModel === undefined) {
    problems.push(
      'LLM_MODEL is required with ANSWERER=llm (e.g. gpt-4o-mini, or the model your server runs)',
    );
  }

  const databaseUrl = read.optionalString('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const encryptionKey = read.optionalKey('ENCRYPTION_KEY');
  if (databaseUrl !== undefined && encryptionKey === undefined && env.ENCRYPTION_KEY === undefined) {
    problems.push(
      'ENCRYPTION_KEY is required with DATABASE_URL (32 bytes as 64 hex characters or base64), so every process shares it',
    );
  }
  const registrationSecret = read.optionalString('REGISTRATION_SECRET');
  if (registrationSecret !== undefined && registrationSecret.length < 32) {
    problems.push('REGISTRATION_SECRET must be at least 32 characters long');
  }
  const slackClientId = read.optionalString('SLACK_CLIENT_ID');
  const slackClientSecret = read.optionalString('SLACK_CLIENT_SECRET');
  if ((slackClientId === undefined) !== (slackClientSecret === undefined)) {
    problems.push('SLACK_CLIENT_ID and SLACK_CLIENT_SECRET must be set together');
  }
  const googleClientId = read.optionalString('GOOGLE_CLIENT_ID');
  const googleClientSecret = read.optionalString('GOOGLE_CLIENT_SECRET');
  if ((googleClientId === undefined) !== (googleClientSecret === undefined)) {
    problems.push('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together');
  }
  const googleTokenUrl = normaliseUrl(read.url('GOOGLE_TOKEN_URL', 'https://oauth2.googleapis.com/token'));
  const clientCredentials = read.clientCredentials('OAUTH_PROXY_CLIENT_CREDENTIALS', {
    slack: { clientId: slackClientId, clientSecret: slackClientSecret },
    google: { clientId: googleClientId, clientSecret: googleClientSecret, tokenUrl: googleTokenUrl },
  });
  const driveCredentials = clientCredentials.googledrive;
  const driveTokenUrl = driveCredentials?.tokenUrls[0];
  // The token endpoint the operator configured for Drive is one the proxy may call.
  const allowlist = [
    ...new Set([
      ...read.urlList('OAUTH_PROXY_ALLOWLIST', DEFAULT_OAUTH_PROXY_ALLOWLIST),
      ...(driveTokenUrl === undefined ? [] : [driveTokenUrl]),
    ]),
  ];
  const host = read.string('HOST', '127.0.0.1');
  const port = read.integer('PORT', 8000, 0, 65535);
  const publicUrl = withoutTrailingSlash(read.url('PUBLIC_URL', `http://${urlHost(host)}:${port}`));
  const smtpUrl = read.optionalString('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/?#]/.test(smtpUrl)) {
    problems.push('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://… (TLS from the start)');
  }
  const defaultFrom = `knowledge-answers <no-reply@${new URL(publicUrl).hostname || 'localhost'}>`;
  const passwordSignIn = read.boolean('PASSWORD_SIGN_IN', true);
  const oidc = readOidcSettings(read, problems, publicUrl);
  if (!passwordSignIn && oidc === undefined && registrationSecret === undefined) {
    problems.push(
      'PASSWORD_SIGN_IN=false needs OIDC_ISSUER and OIDC_CLIENT_ID (or a front end with REGISTRATION_SECRET): nobody could sign in',
    );
  }

  const config: Config = {
    role,
    host,
    port,
    pgliteThread: read.boolean('PGLITE_THREAD', true),
    dataDir: path.resolve(read.string('DATA_DIR', './data')),
    databaseUrl,
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    apiProcesses: read.integer('API_PROCESSES', 1, 1, 64),
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    encryptionKey,
    registrationSecret,
    accessTokenTtlSeconds: read.integer('ACCESS_TOKEN_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    authCacheTtlSeconds: read.integer('AUTH_CACHE_TTL_SECONDS', 5, 0, 300),
    passwordScryptLogN: read.integer('PASSWORD_SCRYPT_LOG_N', 17, 10, 20),
    bodyLimitBytes: read.integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    connectionTimeoutMs: read.integer('CONNECTION_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    trustProxy: read.boolean('TRUST_PROXY', false),
    docsPublic: read.boolean('DOCS_PUBLIC', true),
    webDir: path.resolve(read.string('WEB_DIR', DEFAULT_WEB_DIR)),
    publicUrl,
    smtp: smtpUrl === undefined ? undefined : { url: smtpUrl, from: read.string('SMTP_FROM', defaultFrom) },
    authLimits: {
      failuresPerAccount: read.integer('AUTH_FAILURES_PER_ACCOUNT', 5, 1, 1000),
      failuresPerAddress: read.integer('AUTH_FAILURES_PER_ADDRESS', 20, 1, 100_000),
      maxBlockSeconds: read.integer('AUTH_MAX_BLOCK_SECONDS', 900, 1, 86_400),
      registrationsPerHourPerAddress: read.integer('REGISTRATIONS_PER_HOUR_PER_ADDRESS', 20, 0, 1_000_000),
      oauthClientRegistrationsPerHourPerAddress: read.integer(
        'OAUTH_CLIENT_REGISTRATIONS_PER_HOUR_PER_ADDRESS',
        20,
        0,
        1_000_000,
      ),
      passwordHashConcurrency: read.integer('PASSWORD_HASH_CONCURRENCY', 2, 1, 64),
      passwordHashQueue: read.integer('PASSWORD_HASH_QUEUE', 64, 0, 100_000),
    },
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    workerNiceness: read.integer('WORKER_NICENESS', 10, 0, MAX_NICENESS),
    signIn: {
      password: passwordSignIn,
      providerName: read.string('OIDC_DISPLAY_NAME', 'SSO'),
      oidc,
    },
    slack: {
      clientId: slackClientId,
      clientSecret: slackClientSecret,
      redirectUri: read.optionalUrl('SLACK_REDIRECT_URI'),
      signingSecret: read.optionalString('SLACK_SIGNING_SECRET'),
      apiUrl: withTrailingSlash(read.url('SLACK_API_URL', 'https://slack.com/api/')),
      authorizeUrl: read.url('SLACK_AUTHORIZE_URL', 'https://slack.com/oauth/v2/authorize'),
      botScopes: read.string('SLACK_BOT_SCOPES', DEFAULT_SLACK_BOT_SCOPES),
    },
    wikiBaseUrl,
    oauthProxy: {
      allowlist,
      allowPrivateNetwork: read.boolean('OAUTH_PROXY_ALLOW_PRIVATE_NETWORK', false),
      timeoutMs: read.integer('OAUTH_PROXY_TIMEOUT_MS', 10_000, 100, 120_000),
      maxResponseBytes: read.integer('OAUTH_PROXY_MAX_RESPONSE_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      caFile: read.optionalString('OAUTH_PROXY_CA_FILE'),
      clientCredentials,
    },
    chats: {
      maxMessages: read.integer('CHAT_MAX_MESSAGES', 1000, 1, 100_000),
      maxMessageChars: read.integer('CHAT_MAX_MESSAGE_CHARS', 100_000, 1, 10_000_000),
    },
    indexing: {
      jobConcurrency: read.integer('INDEX_JOB_CONCURRENCY', 2, 1, 64),
      fileConcurrency: read.integer('INDEX_FILE_CONCURRENCY', 4, 1, 64),
      // One core stays with the event loop (HTTP, database); the rest parse.
      parseThreads: read.integer(
        'PARSE_THREADS',
        Math.max(1, Math.min(4, availableParallelism() - 1)),
        1,
        64,
      ),
      parseMemoryMb: read.optionalInteger('INDEX_PARSE_MEMORY_MB', 64, 1_048_576),
      maxFileBytes: read.integer('INDEX_MAX_FILE_BYTES', 50 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
      parseTimeoutMs: read.integer('INDEX_PARSE_TIMEOUT_MS', 60_000, 100, 3_600_000),
      maxUncompressedBytes: read.integer(
        'INDEX_MAX_UNCOMPRESSED_BYTES',
        32 * 1024 * 1024,
        1024,
        2 * 1024 * 1024 * 1024,
      ),
      sourceTimeoutMs: read.integer('SOURCE_TIMEOUT_MS', 30_000, 100, 600_000),
      uploadMaxDocuments: read.integer('UPLOAD_MAX_DOCUMENTS', 500, 1, 100_000),
      uploadMaxBytes: read.integer('UPLOAD_MAX_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    },
    googleDrive: {
      apiUrl: withTrailingSlash(read.url('GOOGLE_DRIVE_API_URL', 'https://www.googleapis.com/')),
      syncIntervalMinutes: read.integer('DRIVE_SYNC_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60),
      oauth:
        driveCredentials === undefined || driveTokenUrl === undefined
          ? undefined
          : {
              clientId: driveCredentials.clientId,
              authorizeUrl: read.url('GOOGLE_AUTH_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
              tokenUrl: driveTokenUrl,
              redirectUri: read.url('GOOGLE_REDIRECT_URI', `${publicUrl}/connectors/google-drive/callback`),
              scope: GOOGLE_DRIVE_SCOPE,
            },
    },
    wiki: {
      allowedHosts: read.hostList('WIKI_ALLOWED_HOSTS', ['*.atlassian.net']),
      allowPrivateNetwork: read.boolean('WIKI_ALLOW_PRIVATE_NETWORK', false),
      syncIntervalMinutes: read.integer('WIKI_SYNC_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60),
    },
    embeddings: {
      provider: embeddingProvider,
      baseUrl: read.url('EMBEDDING_BASE_URL', 'https://api.openai.com/v1'),
      model: embeddingModel ?? (embeddingProvider === 'hashing' ? 'hashing' : ''),
      apiKey: read.optionalString('EMBEDDING_API_KEY'),
      dimensions: read.optionalInteger('EMBEDDING_DIMENSIONS', 1, 16_000),
      batchSize: read.integer('EMBEDDING_BATCH_SIZE', 64, 1, 4096),
      concurrency: read.integer('EMBEDDING_CONCURRENCY', 2, 1, 64),
      timeoutMs: read.integer('EMBEDDING_TIMEOUT_MS', 60_000, 100, 600_000),
    },
    search: {
      denseWeight: read.number('SEARCH_DENSE_WEIGHT', 0, 0, 100),
      rrfK: read.integer('SEARCH_RRF_K', 60, 1, 10_000),
      efSearch: read.integer('SEARCH_EF_SEARCH', 100, 1, 1000),
      memoryIndexBytes: read.integer('SEARCH_MEMORY_INDEX_MB', 512, 0, 1_048_576) * 1024 * 1024,
    },
    answering: {
      answerer,
      passages: read.integer('ANSWER_PASSAGES', 6, 1, 50),
      memoryMessages: read.integer('CHAT_MEMORY_MESSAGES', 10, 0, 100),
      llm: {
        baseUrl: read.url('LLM_BASE_URL', 'https://api.openai.com/v1'),
        apiKey: read.optionalString('LLM_API_KEY'),
        model: llmModel ?? '',
        timeoutMs: read.integer('LLM_TIMEOUT_MS', 60_000, 100, 600_000),
        maxTokens: read.integer('LLM_MAX_TOKENS', 800, 1, 100_000),
        temperature: read.number('LLM_TEMPERATURE', 0.1, 0, 2),
      },
    },
  };
  if (config.apiProcesses > 1 && databaseUrl === undefined) {
    problems.push('API_PROCESSES above 1 needs DATABASE_URL: the embedded PGlite serves one process');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * OIDC_ISSUER with OIDC_CLIENT_ID (both or neither). The issuer is the operator's choice, so it may
 * be private or loopback; plain http only on a loopback address (a provider on this machine, as in
 * development), since ID tokens and client secrets must not cross a network in clear text.
 */
function readOidcSettings(
  read: SettingReader,
  problems: string[],
  publicUrl: string,
): OidcSettings | undefined {
  const issuer = read.optionalString('OIDC_ISSUER');
  const clientId = read.optionalString('OIDC_CLIENT_ID');
  const clientSecret = read.optionalString('OIDC_CLIENT_SECRET');
  const scopes = read.string('OIDC_SCOPES', 'openid email profile').split(/\s+/).filter(Boolean);
  const redirectUri = read.url('OIDC_REDIRECT_URI', `${publicUrl}/v1/auth/oidc/callback`);
  if (issuer === undefined && clientId === undefined) {
    if (clientSecret !== undefined) problems.push('OIDC_CLIENT_SECRET needs OIDC_ISSUER and OIDC_CLIENT_ID');
    return undefined;
  }
  if (issuer === undefined || clientId === undefined) {
    problems.push('OIDC_ISSUER and OIDC_CLIENT_ID must be set together');
    return undefined;
  }
  const issuerProblem = oidcIssuerProblem(issuer);
  if (issuerProblem !== undefined) {
    problems.push(`OIDC_ISSUER ${issuerProblem} (got "${issuer}")`);
    return undefined;
  }
  if (!scopes.includes('openid')) {
    problems.push(`OIDC_SCOPES must include openid (got "${scopes.join(' ')}")`);
  }
  return { issuer, clientId, clientSecret, scopes: scopes.join(' '), redirectUri };
}

/** Why an issuer identifier cannot be used, or undefined. */
function oidcIssuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be an https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  // OpenID Connect Discovery: an issuer identifier has no query or fragment.
  if (url.search !== '' || url.hash !== '' || issuer.includes('?') || issuer.includes('#')) {
    return 'must have no query or fragment';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return 'must be https: plain http is accepted only on a loopback address (127.0.0.1, [::1], localhost)';
  }
  return undefined;
}

/** localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A listening address as a URL's host: IPv6 in brackets, "any address" as the loopback one. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** Normalises a URL so that allowlist comparisons are exact but not fooled by case or default ports. */
export function normaliseUrl(url: string): string {
  return new URL(url).href;
}

class SettingReader {
  constructor(
    private readonly env: Environment,
    private readonly problems: string[],
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  number(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?(\d+\.?\d*|\.\d+)$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  /** `override` (a command-line argument) wins over the variable. */
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T, override?: string): T {
    const value = override ?? this.raw(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
    return fallback;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    if (this.raw(name) === undefined) return undefined;
    return this.integer(name, min, min, max);
  }

  /** Comma-separated host names or `*.suffix` patterns, lower-cased. */
  hostList(name: string, fallback: readonly string[]): readonly string[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const hosts = value
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item !== '');
    const invalid = hosts.filter((item) => !/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(item));
    if (invalid.length > 0) {
      this.problems.push(
        `${name} must list host names or *.suffix patterns (invalid: ${invalid.join(', ')})`,
      );
      return fallback;
    }
    return hosts;
  }

  url(name: string, fallback: string): string {
    return this.optionalUrl(name) ?? fallback;
  }

  optionalUrl(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (!isHttpUrl(value)) {
      this.problems.push(`${name} must be an http(s) URL (got "${value}")`);
      return undefined;
    }
    return value;
  }

  urlList(name: string, fallback: readonly string[]): readonly string[] {
    const value = this.raw(name);
    if (value === undefined) return fallback.map(normaliseUrl);
    const urls = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    const invalid = urls.filter((item) => !isHttpUrl(item));
    if (invalid.length > 0) {
      this.problems.push(`${name} must be a comma-separated list of URLs (invalid: ${invalid.join(', ')})`);
      return [];
    }
    return urls.map(normaliseUrl);
  }

  optionalKey(name: string): Buffer | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== 32) {
      this.problems.push(`${name} must be 32 bytes, as 64 hex characters or base64`);
      return undefined;
    }
    return key;
  }

  /**
   * Server-side client credentials by connector: Slack's and Google's own settings first, then
   * the JSON setting, whose entries win.
   */
  clientCredentials(
    name: string,
    own: {
      slack: { clientId: string | undefined; clientSecret: string | undefined };
      google: { clientId: string | undefined; clientSecret: string | undefined; tokenUrl: string };
    },
  ): Record<string, OAuthClientCredentials> {
    const credentials: Record<string, OAuthClientCredentials> = {};
    if (own.slack.clientId !== undefined && own.slack.clientSecret !== undefined) {
      credentials.chatapp = {
        clientId: own.slack.clientId,
        clientSecret: own.slack.clientSecret,
        tokenUrls: (DEFAULT_TOKEN_URLS.chatapp ?? []).map(normaliseUrl),
      };
    }
    if (own.google.clientId !== undefined && own.google.clientSecret !== undefined) {
      credentials.googledrive = {
        clientId: own.google.clientId,
        clientSecret: own.google.clientSecret,
        tokenUrls: [own.google.tokenUrl],
      };
    }
    const value = this.raw(name);
    if (value === undefined) return credentials;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      this.problems.push(
        `${name} must be JSON: {"<connector>": {"client_id", "client_secret", "token_url"?}}`,
      );
      return credentials;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.problems.push(`${name} must be a JSON object keyed by connector name`);
      return credentials;
    }
    for (const [connector, entry] of Object.entries(parsed)) {
      if (!/^[a-z][a-z0-9_-]*$/.test(connector)) {
        this.problems.push(`${name} keys must be connector names in lower case (got "${connector}")`);
        continue;
      }
      const item = entry as Record<string, unknown> | null;
      const tokenUrls = item?.token_url === undefined ? DEFAULT_TOKEN_URLS[connector] : [item.token_url];
      if (
        typeof item?.client_id !== 'string' ||
        typeof item.client_secret !== 'string' ||
        tokenUrls === undefined ||
        !tokenUrls.every((url) => typeof url === 'string' && isHttpUrl(url))
      ) {
        this.problems.push(
          `${name}.${connector} needs string client_id and client_secret, and token_url unless the connector is one of ${Object.keys(DEFAULT_TOKEN_URLS).join(', ')}`,
        );
        continue;
      }
      credentials[connector] = {
        clientId: item.client_id,
        clientSecret: item.client_secret,
        tokenUrls: (tokenUrls as string[]).map(normaliseUrl),
      };
    }
    return credentials;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

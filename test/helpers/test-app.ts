import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { type Config, parseConfig } from '../../src/config.js';
import { createRuntime, type Runtime, type RuntimeOverrides } from '../../src/deps.js';
import { type App, buildApp } from '../../src/http/app.js';
import { loggerOptions } from '../../src/logger.js';
import { startWorker } from '../../src/worker.js';
import { HANG_BOUND_MS } from './hang-bound.js';
import { multipart } from './multipart-body.js';
import { createTestDatabase } from './test-database.js';

/** The trusted front end's secret in every test app: `bearer(TEST_REGISTRATION_SECRET)` vouches for an e-mail. */
export const TEST_REGISTRATION_SECRET = 'test-registration-secret-0123456789abcdef';

/** Settings every test app starts from; a test adds or overrides its own. */
export const TEST_ENV: Readonly<Record<string, string>> = {
  ENCRYPTION_KEY: '4f'.repeat(32),
  PASSWORD_SCRYPT_LOG_N: '10',
  LOG_LEVEL: 'info',
  REGISTRATION_SECRET: TEST_REGISTRATION_SECRET,
  // Every test registers and signs in from 127.0.0.1: the per-address limits get their own tests.
  REGISTRATIONS_PER_HOUR_PER_ADDRESS: '0',
  AUTH_FAILURES_PER_ADDRESS: '100000',
};

export interface TestApp {
  readonly app: App;
  readonly runtime: Runtime;
  readonly config: Config;
  /** Every log line the app wrote, as text. */
  readonly logLines: string[];
  close(): Promise<void>;
}

/** Starts the real application on a fresh database (PGlite, or PostgreSQL under TEST_DB_KIND=postgres). */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    overrides?: Omit<RuntimeOverrides, 'database'>;
    /** Also run the background worker (index jobs), polling often so tests see results fast. */
    worker?: boolean;
  } = {},
): Promise<TestApp> {
  const config = parseConfig({ ...TEST_ENV, ...options.env });
  const database = await createTestDatabase();
  const runtime = await createRuntime(config, {
    queueTimings: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 },
    ...options.overrides,
    database: database.location,
  });
  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    deps: runtime.deps,
    ping: runtime.database.ping,
    logger: { ...loggerOptions(config.logLevel), stream },
  });
  await app.ready();
  const stopWorker = options.worker
    ? await startWorker(runtime, config, pino({ level: 'silent' }))
    : () => {};
  return {
    app,
    runtime,
    config,
    logLines,
    close: async () => {
      stopWorker();
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
}

let registrationCounter = 0;

/** A short random suffix that keeps e-mails and account ids apart between tests. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** A registration record as a provider sign-in sends it (spec 2.7), for `email`. */
export function registrationRecord(email: string, overrides: Record<string, unknown> = {}) {
  return {
    type: 'oidc',
    provider: 'google',
    provider_account_id: `google-${uniqueSuffix()}`,
    email,
    name: 'Pat',
    access_token: `ya29.${uniqueSuffix()}`,
    ...overrides,
  };
}

/**
 * Invites a new address into the team of `ownerToken`'s user and registers it with the code, both
 * through the API; returns the new member's bearer token.
 */
export async function joinedMember(
  app: App,
  ownerToken: string,
  role: 'member' | 'admin' = 'member',
): Promise<string> {
  registrationCounter += 1;
  const email = `member-${process.pid}-${registrationCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const invited = await app.inject({
    method: 'POST',
    url: '/v1/teams/invitations',
    headers: bearer(ownerToken),
    payload: { email, role },
  });
  if (invited.statusCode !== 201)
    throw new Error(`invitation refused: ${invited.statusCode} ${invited.body}`);
  const joined = await app.inject({
    method: 'POST',
    url: '/v2/users/register',
    payload: { email, password: 'member-password', invitation: invited.json().code },
  });
  if (joined.statusCode !== 201) throw new Error(`registration refused: ${joined.statusCode} ${joined.body}`);
  return joined.json().access_token as string;
}

/**
 * Registers a fresh user through the API; returns its token and ids. With `headers` carrying
 * `bearer(TEST_REGISTRATION_SECRET)` it is the trusted front end's registration, which proves the
 * address.
 */
export async function registerUser(
  app: App,
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ token: string; userId: number; teamId: number; body: Record<string, unknown> }> {
  registrationCounter += 1;
  const unique = `${process.pid}-${registrationCounter}-${Math.random().toString(36).slice(2, 8)}`;
  const response = await app.inject({
    method: 'POST',
    url: '/v2/users/register',
    headers,
    payload: {
      type: 'oauth',
      provider: 'google',
      provider_account_id: `acct-${unique}`,
      email: `user-${unique}@example.com`,
      name: `User ${unique}`,
      ...fields,
    },
  });
  if (response.statusCode !== 201)
    throw new Error(`registration failed: ${response.statusCode} ${response.body}`);
  const body = response.json() as Record<string, unknown> & {
    access_token: string;
    user: { id: number; team_id: number };
  };
  return { token: body.access_token, userId: body.user.id, teamId: body.user.team_id, body };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function json(response: LightMyRequestResponse): unknown {
  return JSON.parse(response.body);
}

/** Polls a job (`GET <path>`) until it is ready; answers its last view. */
export async function waitForJob(
  app: App,
  token: string,
  path: string,
  timeoutMs = HANG_BOUND_MS,
): Promise<Record<string, unknown> & { status: string; files: Record<string, unknown>[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.inject({ url: path, headers: bearer(token) });
    if (response.statusCode !== 200) throw new Error(`GET ${path}: ${response.statusCode} ${response.body}`);
    const view = response.json() as Record<string, unknown> & {
      status: string;
      files: Record<string, unknown>[];
    };
    if (view.result_ready === true) return view;
    if (Date.now() > deadline) throw new Error(`job not ready after ${timeoutMs} ms: ${response.body}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Uploads JSON documents into the token's team (`POST /v1/documents`) and waits until their job is
 * ready; answers the job's view. Throws when the upload is refused.
 */
export async function uploadDocuments(
  app: App,
  token: string,
  documents: readonly unknown[],
  timeoutMs = HANG_BOUND_MS,
): Promise<Awaited<ReturnType<typeof waitForJob>>> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/documents',
    headers: bearer(token),
    payload: { documents },
  });
  if (response.statusCode !== 202) throw new Error(`upload refused: ${response.statusCode} ${response.body}`);
  const { result_id: id } = response.json() as { result_id: string };
  return waitForJob(app, token, `/v1/documents/jobs/${id}`, timeoutMs);
}

/**
 * Uploads files into the token's team as one multipart `POST /v1/documents` (`file` parts, as a
 * browser sends them) and waits until their job is ready; answers the job's view. Throws when the
 * upload is refused.
 */
export async function uploadFiles(
  app: App,
  token: string,
  files: readonly { fileName: string; type: string; content: Uint8Array | string }[],
  timeoutMs = HANG_BOUND_MS,
): Promise<Awaited<ReturnType<typeof waitForJob>>> {
  const { body, contentType } = multipart(files.map((file) => ({ name: 'file', ...file })));
  const response = await app.inject({
    method: 'POST',
    url: '/v1/documents',
    headers: { ...bearer(token), 'content-type': contentType },
    payload: body,
  });
  if (response.statusCode !== 202) throw new Error(`upload refused: ${response.statusCode} ${response.body}`);
  const { result_id: id } = response.json() as { result_id: string };
  return waitForJob(app, token, `/v1/documents/jobs/${id}`, timeoutMs);
}

/** A team's document's chunk texts in order, read from the database. */
export async function storedChunkTexts(
  testApp: TestApp,
  teamId: number,
  externalId: string,
): Promise<string[]> {
  const { rows } = await testApp.runtime.database.sql.executeSql(
    `SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.team_id = $1 AND d.external_id = $2 ORDER BY c.position`,
    [teamId, externalId],
  );
  return rows.map((row) => String(row.text));
}

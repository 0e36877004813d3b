import type { Caller } from '../../src/caller.js';
import { ServiceError, type ServiceErrorCode } from '../../src/errors.js';
import {
  SEND_ACCOUNT_EMAIL_JOB,
  type SendAccountEmailPayload,
} from '../../src/jobs/definitions/send-account-email.js';
import { getIndexJob } from '../../src/services/get-index-job.js';
import { inviteMember } from '../../src/services/invite-member.js';
import { type UploadedTextDocument, uploadTextDocuments } from '../../src/services/upload-documents.js';
import { FakeSmtpServer } from '../fakes/fake-smtp-server.js';
import { HANG_BOUND_MS } from './hang-bound.js';
import { registerUser, startTestApp, type TestApp, uniqueSuffix } from './test-app.js';

/**
 * Helpers for the direct tests of use cases (src/services/<use-case>.test.ts): they call the
 * exported function with the real dependencies of a test app (`testApp.runtime.deps`) instead of
 * going through HTTP.
 */

export interface SignedInUser {
  readonly token: string;
  readonly caller: Caller;
  readonly body: Record<string, unknown>;
}

/** Registers a fresh user (through the API) and answers the caller its token stands for. */
export async function signedInUser(
  testApp: TestApp,
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<SignedInUser> {
  const user = await registerUser(testApp.app, fields, headers);
  const caller = await testApp.runtime.deps.callers.find(user.token);
  if (caller === undefined) throw new Error('a fresh token found no caller');
  return { token: user.token, caller, body: user.body };
}

/**
 * A user who joined `owner`'s team through an invitation (`inviteMember`, then registration with
 * its code), as `role`; `fields` adds to the registration (its `email` is the invitation's), and
 * `headers` to its request (`bearer(TEST_REGISTRATION_SECRET)`: the trusted front end's, which
 * proves the address).
 */
export async function invitedMember(
  testApp: TestApp,
  owner: SignedInUser,
  role: 'member' | 'admin' = 'member',
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<SignedInUser> {
  const email = typeof fields.email === 'string' ? fields.email : `${role}-${uniqueSuffix()}@example.com`;
  const { code } = await inviteMember(testApp.runtime.deps, owner.caller, { email, role });
  return signedInUser(testApp, { ...fields, email, invitation: code }, headers);
}

/** What a promise was rejected with; fails when it was fulfilled. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise was fulfilled');
}

/** The ServiceError a use case refused with; fails on success or on any other error, or another code. */
export async function refusal(promise: Promise<unknown>, code: ServiceErrorCode): Promise<ServiceError> {
  const error = await rejectionOf(promise);
  if (!(error instanceof ServiceError)) throw error;
  if (error.code !== code) {
    throw new Error(`expected a ServiceError ${code}, got ${error.code}: ${error.message}`);
  }
  return error;
}

/** Polls getIndexJob until the job is ready (the test app's worker runs it); answers its view. */
export async function waitForIndexJob(
  testApp: TestApp,
  caller: Caller,
  jobId: string,
  timeoutMs = HANG_BOUND_MS,
): Promise<Awaited<ReturnType<typeof getIndexJob>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await getIndexJob(testApp.runtime.deps, caller, jobId);
    if (view.result_ready) return view;
    if (Date.now() > deadline) throw new Error(`job ${jobId} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Uploads JSON documents into the caller's team and waits for the worker to index them. */
export async function indexTexts(
  testApp: TestApp,
  caller: Caller,
  documents: readonly UploadedTextDocument[],
): Promise<Awaited<ReturnType<typeof getIndexJob>>> {
  const queued = await uploadTextDocuments(testApp.runtime.deps, caller, documents);
  return waitForIndexJob(testApp, caller, queued.result_id);
}

/** Waits until `check` holds, polling. */
export async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = HANG_BOUND_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An account e-mail a use case queued: its job's payload and the one-time code it carries. */
export interface QueuedAccountEmail {
  readonly payload: SendAccountEmailPayload;
  readonly code: string;
}

/** A test app that mails through a local SMTP server (no worker: tests send the queued mails). */
export interface MailingTestApp {
  readonly testApp: TestApp;
  readonly smtp: FakeSmtpServer;
  close(): Promise<void>;
}

/** Starts a test app with SMTP_URL pointing at a FakeSmtpServer, without a worker. */
export async function startMailingTestApp(env: Record<string, string> = {}): Promise<MailingTestApp> {
  const smtp = await new FakeSmtpServer().start();
  const testApp = await startTestApp({
    env: {
      SMTP_URL: smtp.url(),
      SMTP_FROM: 'Knowledge <no-reply@knowledge.test>',
      PUBLIC_URL: 'https://knowledge.test/',
      ...env,
    },
  });
  return {
    testApp,
    smtp,
    close: async () => {
      await testApp.close();
      await smtp.close();
    },
  };
}

/**
 * The account e-mails queued for a user and purpose, oldest first, read from the job queue's own
 * table (the job carries the code sealed; the test opens it as the job would).
 */
export async function queuedAccountEmails(
  testApp: TestApp,
  userId: number,
  purpose: SendAccountEmailPayload['purpose'],
): Promise<QueuedAccountEmail[]> {
  const { deps } = testApp.runtime;
  const { rows } = await testApp.runtime.database.sql.executeSql(
    `SELECT data FROM pgboss.job WHERE name = $1 AND (data->>'userId')::int = $2 AND data->>'purpose' = $3
     ORDER BY created_on, id`,
    [SEND_ACCOUNT_EMAIL_JOB, userId, purpose],
  );
  return rows.map((row) => {
    const payload = (
      typeof row.data === 'string' ? JSON.parse(row.data) : row.data
    ) as SendAccountEmailPayload;
    return { payload, code: deps.secrets.open(payload.sealedCode) };
  });
}

/** The last account e-mail queued for a user and purpose. */
export async function lastQueuedMail(
  testApp: TestApp,
  userId: number,
  purpose: SendAccountEmailPayload['purpose'],
): Promise<QueuedAccountEmail> {
  const last = (await queuedAccountEmails(testApp, userId, purpose)).at(-1);
  if (last === undefined) throw new Error(`no ${purpose} mail queued for user ${userId}`);
  return last;
}

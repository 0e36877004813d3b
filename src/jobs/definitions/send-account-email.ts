import { type Static, Type } from 'typebox';
import { defineJob, type JobContext, type JobDefinition } from '../job-queue.js';
import type { RetrySettings } from '../retry-policy.js';

/** The queue of account e-mails (verification and password-reset links); one job per message. */
export const SEND_ACCOUNT_EMAIL_JOB = 'send-account-email';

/** From half a minute, doubling, six times: a mail server down for most of an hour still gets it. */
export const SEND_ACCOUNT_EMAIL_RETRY: RetrySettings = {
  limit: 6,
  backoff: { type: 'exponential', delaySeconds: 30 },
};

const SendAccountEmailPayloadSchema = Type.Object({
  userId: Type.Integer({ minimum: 1 }),
  purpose: Type.Union([Type.Literal('verify_email'), Type.Literal('reset_password')]),
  /** The one-time code, sealed (AES-256-GCM): the job table must not hold a usable link. */
  sealedCode: Type.String({ minLength: 1, maxLength: 1000 }),
});

export type SendAccountEmailPayload = Static<typeof SendAccountEmailPayloadSchema>;

/** Sends one account e-mail; the handler is the use case, wired in deps.ts. */
export function sendAccountEmailJob(
  handler: (payload: SendAccountEmailPayload, context: JobContext) => Promise<void>,
): JobDefinition<SendAccountEmailPayload> {
  return defineJob({
    name: SEND_ACCOUNT_EMAIL_JOB,
    payloadSchema: SendAccountEmailPayloadSchema,
    retry: SEND_ACCOUNT_EMAIL_RETRY,
    // One SMTP conversation, bounded by the mailer's own time-outs.
    expireInSeconds: 5 * 60,
    heartbeat: false,
    concurrency: 2,
    handler,
  });
}

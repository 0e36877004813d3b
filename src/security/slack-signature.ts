import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's own limit: a request signed more than five minutes from now may be a replay. */
export const SLACK_SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** Why a request's signature was refused, in words fit for the 401 answer. */
export type SlackSignatureProblem =
  | 'missing_headers'
  | 'malformed_timestamp'
  | 'stale_timestamp'
  | 'malformed_signature'
  | 'wrong_signature';

export interface SlackSignedRequest {
  /** `X-Slack-Request-Timestamp`: Unix seconds, as text. */
  readonly timestamp: string | undefined;
  /** `X-Slack-Signature`: `v0=` and 64 hex digits. */
  readonly signature: string | undefined;
  /** The body exactly as it arrived: re-serialised JSON would not match. */
  readonly rawBody: Buffer;
}

const SIGNATURE = /^v0=[0-9a-f]{64}$/;

/** `v0=` + HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the app's signing secret. */
export function signSlackRequest(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest('hex')}`;
}

/**
 * Checks that Slack signed this request (https://api.slack.com/authentication/verifying-requests-from-slack):
 * the timestamp within `toleranceSeconds` of `nowSeconds`, and the signature compared in constant time.
 * Answers the problem, or undefined when the request is Slack's.
 */
export function slackSignatureProblem(
  signingSecret: string,
  request: SlackSignedRequest,
  nowSeconds: number,
  toleranceSeconds: number = SLACK_SIGNATURE_TOLERANCE_SECONDS,
): SlackSignatureProblem | undefined {
  const { timestamp, signature, rawBody } = request;
  if (timestamp === undefined || signature === undefined) return 'missing_headers';
  if (!/^\d{1,12}$/.test(timestamp)) return 'malformed_timestamp';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return 'stale_timestamp';
  // Hex is case-insensitive, but Slack sends lower case; anything else is not its signature.
  if (!SIGNATURE.test(signature)) return 'malformed_signature';
  const expected = Buffer.from(signSlackRequest(signingSecret, timestamp, rawBody), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual throws on unequal lengths; the pattern above already fixed the length.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'wrong_signature';
  return undefined;
}

/** The words a 401 answer gives for each problem. */
export const SLACK_SIGNATURE_MESSAGES: Readonly<Record<SlackSignatureProblem, string>> = {
  missing_headers: 'Missing Slack signature: X-Slack-Signature and X-Slack-Request-Timestamp are required',
  malformed_timestamp: 'Invalid Slack signature: X-Slack-Request-Timestamp is not a Unix time',
  stale_timestamp: 'Invalid Slack signature: the request timestamp is more than 5 minutes from now',
  malformed_signature: 'Invalid Slack signature: X-Slack-Signature is not a v0 signature',
  wrong_signature: 'Invalid Slack signature',
};

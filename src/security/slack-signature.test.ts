import { describe, expect, it } from 'vitest';
import { signSlackRequest, slackSignatureProblem } from './slack-signature.js';

// The worked example of Slack's "Verifying requests from Slack" guide.
const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TIMESTAMP = '1531420618';
const DOC_BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const DOC_SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

const SECRET = 'test-signing-secret';
const NOW = 1_700_000_000;

function signed(body: string, timestamp = String(NOW), secret = SECRET) {
  return { timestamp, signature: signSlackRequest(secret, timestamp, body), rawBody: Buffer.from(body) };
}

describe('Slack request signatures', () => {
  it("computes Slack's documented example", () => {
    expect(signSlackRequest(DOC_SECRET, DOC_TIMESTAMP, DOC_BODY)).toBe(DOC_SIGNATURE);
    const request = { timestamp: DOC_TIMESTAMP, signature: DOC_SIGNATURE, rawBody: Buffer.from(DOC_BODY) };
    expect(slackSignatureProblem(DOC_SECRET, request, Number(DOC_TIMESTAMP) + 10)).toBeUndefined();
  });

  it('accepts a request signed with the secret within five minutes either way', () => {
    const body = '{"type":"event_callback","event":{"text":"héllo"}}';
    expect(slackSignatureProblem(SECRET, signed(body), NOW)).toBeUndefined();
    expect(slackSignatureProblem(SECRET, signed(body, String(NOW - 300)), NOW)).toBeUndefined();
    expect(slackSignatureProblem(SECRET, signed(body, String(NOW + 300)), NOW)).toBeUndefined();
  });

  it('refuses timestamps more than five minutes from now, even correctly signed', () => {
    expect(slackSignatureProblem(SECRET, signed('{}', String(NOW - 301)), NOW)).toBe('stale_timestamp');
    expect(slackSignatureProblem(SECRET, signed('{}', String(NOW + 301)), NOW)).toBe('stale_timestamp');
  });

  it('refuses another secret, a changed body and a changed timestamp', () => {
    const body = '{"type":"url_verification","challenge":"abc"}';
    expect(slackSignatureProblem(SECRET, signed(body, String(NOW), 'other-secret'), NOW)).toBe(
      'wrong_signature',
    );
    const tampered = { ...signed(body), rawBody: Buffer.from(body.replace('abc', 'abd')) };
    expect(slackSignatureProblem(SECRET, tampered, NOW)).toBe('wrong_signature');
    const moved = { ...signed(body), timestamp: String(NOW - 1) };
    expect(slackSignatureProblem(SECRET, moved, NOW)).toBe('wrong_signature');
  });

  it('compares the raw bytes: the same JSON spaced differently does not verify', () => {
    const request = signed('{"type":"event_callback"}');
    expect(
      slackSignatureProblem(SECRET, { ...request, rawBody: Buffer.from('{"type": "event_callback"}') }, NOW),
    ).toBe('wrong_signature');
  });

  it('refuses missing or malformed headers without throwing', () => {
    const request = signed('{}');
    expect(slackSignatureProblem(SECRET, { ...request, signature: undefined }, NOW)).toBe('missing_headers');
    expect(slackSignatureProblem(SECRET, { ...request, timestamp: undefined }, NOW)).toBe('missing_headers');
    expect(slackSignatureProblem(SECRET, { ...request, timestamp: '17e8' }, NOW)).toBe('malformed_timestamp');
    expect(slackSignatureProblem(SECRET, { ...request, timestamp: '' }, NOW)).toBe('malformed_timestamp');
    for (const signature of ['', 'v0=', 'v1=abc', `${request.signature}00`, request.signature.slice(0, -1)]) {
      expect(slackSignatureProblem(SECRET, { ...request, signature }, NOW)).toBe('malformed_signature');
    }
    expect(
      slackSignatureProblem(SECRET, { ...request, signature: request.signature.toUpperCase() }, NOW),
    ).toBe('malformed_signature');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal, rejectionOf } from '../../test/helpers/use-case-harness.js';
import type { ServiceError } from '../errors.js';
import { registerUser } from './register-user.js';
import { signIn } from './sign-in.js';

const ADDRESS = '198.51.100.20';

describe('signIn', () => {
  let testApp: TestApp;
  let email: string;
  let userId: number;
  const username = `ann_${uniqueSuffix()}`;
  beforeAll(async () => {
    testApp = await startTestApp();
    email = `ann-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(
      testApp.runtime.deps,
      { email, password: 'correct horse', username },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    userId = registered.body.user.id;
  });
  afterAll(() => testApp.close());

  it('answers a new bearer token for the right password, by e-mail in any spelling or by username', async () => {
    const { deps } = testApp.runtime;
    const tokens: string[] = [];
    for (const input of [
      { email },
      { email: ` ${email.toUpperCase()} ` },
      { username },
      { username: email },
    ]) {
      const answer = await signIn(deps, { ...input, password: 'correct horse', clientAddress: ADDRESS });
      expect(answer.token_type).toBe('bearer');
      expect((await deps.callers.find(answer.access_token))?.userId).toBe(userId);
      tokens.push(answer.access_token);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('refuses a wrong password and an unknown account alike, issuing no token', async () => {
    const { deps } = testApp.runtime;
    const wrong = await refusal(
      signIn(deps, { email, password: 'wrong horse', clientAddress: ADDRESS }),
      'unauthenticated',
    );
    const unknown = await refusal(
      signIn(deps, { email: `nobody-${uniqueSuffix()}@example.com`, password: 'x', clientAddress: ADDRESS }),
      'unauthenticated',
    );
    expect(unknown.message).toBe(wrong.message);
  });

  it('needs an e-mail or a username', async () => {
    const error = await refusal(
      signIn(testApp.runtime.deps, { email: ' ', password: 'correct horse', clientAddress: ADDRESS }),
      'validation',
    );
    expect(error.options.issues?.[0]?.loc).toEqual(['body', 'email']);
  });

  it('blocks an account after repeated failures, even for the right password', async () => {
    const { deps } = testApp.runtime;
    const victim = `vic-${uniqueSuffix()}@example.com`;
    await registerUser(
      deps,
      { email: victim, password: 'victim-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const codes: string[] = [];
    while (!codes.includes('too_many_requests') && codes.length < 12) {
      const error = await rejectionOf(
        signIn(deps, { email: victim, password: `guess-${codes.length}`, clientAddress: ADDRESS }),
      );
      codes.push((error as ServiceError).code);
    }
    // The allowance (AUTH_FAILURES_PER_ACCOUNT, 5) of plain refusals, then a block.
    expect(codes.slice(0, 5)).toEqual(Array(5).fill('unauthenticated'));
    expect(codes.at(-1)).toBe('too_many_requests');
    const throttled = await refusal(
      signIn(deps, { email: victim, password: 'victim-password', clientAddress: ADDRESS }),
      'too_many_requests',
    );
    expect(throttled.options.retryAfterSeconds).toBeGreaterThan(0);
  });
});

import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { ServiceError, type ValidationIssue } from '../errors.js';
import { generateAccessToken, hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';

/** A name's length once trimmed. */
const MAX_NAME_LENGTH = 100;
/** At most ten years: longer is "never", which omitting the expiry says plainly. */
export const MAX_PERSONAL_TOKEN_DAYS = 3650;
/** Live (unexpired) personal tokens a user may hold. */
export const MAX_PERSONAL_TOKENS = 100;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PersonalTokenInput {
  readonly name: string;
  /** Absent or null: the token never expires (until revoked). */
  readonly expires_in_days?: number | null;
}

/** A new personal access token with its secret: shown this once, stored only as a hash. */
export interface NewPersonalTokenView {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly created_at: string;
  readonly expires_at: string | null;
}

/**
 * Makes a personal access token for the caller: a bearer token like a sign-in's (the CLI and API
 * clients of people who sign in with single sign-on and have no password), named by its maker,
 * listed and revoked by its public id.
 */
export async function createPersonalToken(
  deps: ServiceDependencies,
  caller: Caller,
  input: PersonalTokenInput,
): Promise<NewPersonalTokenView> {
  const name = input.name.trim();
  checkInput(input, name);
  const token = generateAccessToken();
  const createdAt = deps.now();
  const days = input.expires_in_days ?? undefined;
  const expiresAt = days === undefined ? null : new Date(createdAt.getTime() + days * DAY_MS);
  const row = await deps.data.transaction(async (tx) => {
    if (!(await tx.accessTokens.lockUserTokens(caller.userId))) {
      throw new ServiceError('unauthenticated', 'Not authenticated');
    }
    if ((await tx.accessTokens.countLivePersonalTokens(caller.userId)) >= MAX_PERSONAL_TOKENS) {
      throw new ServiceError(
        'conflict',
        `You already have ${MAX_PERSONAL_TOKENS} personal access tokens: revoke one you no longer use first (DELETE /v1/users/me/tokens/{id})`,
      );
    }
    return tx.accessTokens.insertPersonalToken({
      userId: caller.userId,
      tokenHash: hashAccessToken(token),
      publicId: randomUUID(),
      name,
      createdAt,
      expiresAt,
    });
  });
  return {
    id: row.publicId,
    name: row.name,
    token,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}

/** The route's schema checks the same; use cases are also called directly. */
function checkInput(input: PersonalTokenInput, name: string): void {
  const issues: ValidationIssue[] = [];
  if (name.length === 0) {
    issues.push({
      type: 'string_too_short',
      loc: ['body', 'name'],
      msg: 'String should have at least 1 character',
      input: input.name,
      ctx: { min_length: 1 },
    });
  } else if (name.length > MAX_NAME_LENGTH) {
    issues.push({
      type: 'string_too_long',
      loc: ['body', 'name'],
      msg: `String should have at most ${MAX_NAME_LENGTH} characters`,
      input: input.name,
      ctx: { max_length: MAX_NAME_LENGTH },
    });
  }
  const days = input.expires_in_days;
  if (days !== undefined && days !== null) {
    if (!Number.isInteger(days)) {
      issues.push({
        type: 'int_type',
        loc: ['body', 'expires_in_days'],
        msg: 'Input should be a valid integer',
        input: days,
      });
    } else if (days < 1 || days > MAX_PERSONAL_TOKEN_DAYS) {
      const tooSmall = days < 1;
      issues.push({
        type: tooSmall ? 'greater_than_equal' : 'less_than_equal',
        loc: ['body', 'expires_in_days'],
        msg: tooSmall
          ? 'Input should be greater than or equal to 1'
          : `Input should be less than or equal to ${MAX_PERSONAL_TOKEN_DAYS}`,
        input: days,
        ctx: tooSmall ? { ge: 1 } : { le: MAX_PERSONAL_TOKEN_DAYS },
      });
    }
  }
  if (issues.length > 0) throw ServiceError.validation(issues);
}

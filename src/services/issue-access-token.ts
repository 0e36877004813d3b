import type { Repositories } from '../db/repositories.js';
import { generateAccessToken, hashAccessToken } from '../security/access-tokens.js';

/** Creates a bearer token for a user; the caller sees it once, the database keeps its hash. */
export async function issueAccessToken(
  data: Pick<Repositories, 'accessTokens'>,
  userId: number,
  ttlSeconds: number,
  now: Date,
): Promise<string> {
  const token = generateAccessToken();
  await data.accessTokens.insertAccessToken(
    userId,
    hashAccessToken(token),
    new Date(now.getTime() + ttlSeconds * 1000),
  );
  return token;
}

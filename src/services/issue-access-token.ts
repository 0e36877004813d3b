import type { Database } from '../db/client.js';
import { insertAccessToken } from '../db/repositories/access-tokens.js';
import { generateAccessToken, hashAccessToken } from '../security/access-tokens.js';

/** Creates a bearer token for a user; the caller sees it once, the database keeps its hash. */
export async function issueAccessToken(
  db: Database,
  userId: number,
  ttlSeconds: number,
  now: Date,
): Promise<string> {
  const token = generateAccessToken();
  await insertAccessToken(db, userId, hashAccessToken(token), new Date(now.getTime() + ttlSeconds * 1000));
  return token;
}

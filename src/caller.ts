/**
 * Who is asking: the signed-in user behind a request's token, with their team. Every use case is
 * scoped by it; it is resolved once per request (http/auth.ts) and never taken from a body.
 */
export interface Caller {
  readonly userId: number;
  readonly teamId: number;
  readonly email: string;
  readonly tokenHash: string;
}

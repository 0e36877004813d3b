import { type TSchema, Type } from 'typebox';

/** Integers JSON can carry exactly, which PostgreSQL's bigint also holds. */
export const SAFE_INTEGER_RANGE = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/**
 * Optional fields of the original service accepted null as "not given". A JSON-schema type list
 * (not `anyOf`) keeps ajv's errors to one per bad field, so the 422 lists each problem once.
 */
export const Nullable = {
  String: (options: Record<string, unknown> = {}) =>
    Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], ...options })),
  Integer: (options: Record<string, unknown> = {}) =>
    Type.Optional(
      Type.Unsafe<number | null>({ type: ['integer', 'null'], ...SAFE_INTEGER_RANGE, ...options }),
    ),
  Boolean: (options: Record<string, unknown> = {}) =>
    Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'], ...options })),
};

/** `{"detail": "<message>"}`, the body of every error but validation. */
export const ErrorDetail = Type.Object({ detail: Type.String() });

/** FastAPI's validation error body (spec part 7). */
export const ValidationErrorBody = Type.Object({
  detail: Type.Array(
    Type.Object({
      loc: Type.Array(Type.Unsafe<string | number>({ type: ['string', 'integer'] })),
      msg: Type.String(),
      type: Type.String(),
    }),
  ),
});

/**
 * The error responses every authenticated route can give, for the OpenAPI document: 503 (with
 * `Retry-After`) while the database is unavailable.
 */
export function withErrors<T extends Record<number, TSchema>>(responses: T) {
  return { ...responses, 401: ErrorDetail, 422: ValidationErrorBody, 503: ErrorDetail };
}

/** Either credential: a bearer token, or a browser's session cookie. */
export const bearerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/**
 * Marks a JSON body schema of a route that also takes multipart uploads: its validator lets an
 * absent body (a multipart request) through to the handler.
 */
export const ALSO_MULTIPART = 'x-also-multipart';

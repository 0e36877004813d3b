import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { changePassword } from '../../../services/change-password.js';
import { requestPasswordReset } from '../../../services/request-password-reset.js';
import { resetPassword } from '../../../services/reset-password.js';
import { signIn } from '../../../services/sign-in.js';
import { signOut } from '../../../services/sign-out.js';
import { signOutEverywhere } from '../../../services/sign-out-everywhere.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import {
  bearerSecurity,
  ErrorDetail,
  Nullable,
  ValidationErrorBody,
  withErrors,
} from '../../schema-types.js';

/** What a sign-in sends, for a token (`/v1/auth/token`) or a browser session (`/v1/auth/session`). */
export const SignInBody = Type.Object({
  email: Nullable.String({ maxLength: 320 }),
  // As long as an e-mail: a username that is an e-mail address signs in by e-mail.
  username: Nullable.String({ maxLength: 320, description: 'a username, or the e-mail address' }),
  password: Type.String({ maxLength: 1024 }),
});

const TokenResponse = Type.Object({ access_token: Type.String(), token_type: Type.String() });

/** A new password's own limits; the 8-character floor is checked by the use case (no echo). */
const NewPassword = Type.String({ maxLength: 1024 });

export const SIGN_IN_DESCRIPTION =
  '`username` may be the e-mail address (signs in by e-mail; as a username when no account has that address). Failed attempts are counted per account and per client address: past AUTH_FAILURES_PER_ACCOUNT (5) or AUTH_FAILURES_PER_ADDRESS (20) in an hour, each further one blocks for twice as long (up to AUTH_MAX_BLOCK_SECONDS), answered 429 with Retry-After.';

export const throttled = { 429: ErrorDetail, 503: ErrorDetail };

export const authRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/auth/token',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'Sign in with an e-mail or username and a password; answers a bearer token',
        description: SIGN_IN_DESCRIPTION,
        body: SignInBody,
        response: { 200: TokenResponse, 401: ErrorDetail, 422: ValidationErrorBody, ...throttled },
      },
    },
    async (request) => signIn(deps, { ...request.body, clientAddress: request.ip }),
  );

  app.delete(
    '/v1/auth/token',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the bearer token of this request',
        security: bearerSecurity,
        response: withErrors({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await signOut(deps, callerOf(request));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/auth/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: "Sign out everywhere: revoke every bearer token of the caller's user, this one included",
        security: bearerSecurity,
        response: withErrors({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await signOutEverywhere(deps, callerOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/auth/password',
    {
      schema: {
        tags: ['auth'],
        summary: 'Change the signed-in user’s password; every other session of the user ends',
        description:
          '`current_password` is required when the account has one. The new password needs at least 8 characters.',
        security: bearerSecurity,
        body: Type.Object({
          current_password: Nullable.String({ maxLength: 1024 }),
          new_password: NewPassword,
        }),
        response: withErrors({ 204: Type.Null(), 403: ErrorDetail, ...throttled }),
      },
    },
    async (request, reply) => {
      await changePassword(deps, callerOf(request), request.body, request.ip);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/auth/password-reset',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'Mail a one-time code to reset the password of the account with this e-mail',
        description:
          'Answers 202 whether or not such an account exists. Needs SMTP_URL (503 otherwise). The code works once, for an hour.',
        body: Type.Object({ email: Type.String({ maxLength: 320 }) }),
        response: { 202: ErrorDetail, 422: ValidationErrorBody, ...throttled },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await requestPasswordReset(deps, request.body, request.ip)),
  );

  app.post(
    '/v1/auth/password-reset/confirm',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a mailed reset code; answers a bearer token',
        description:
          'The code proves the e-mail address: the account counts as verified. Every other session of the user ends.',
        body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 200 }), new_password: NewPassword }),
        response: { 200: TokenResponse, 400: ErrorDetail, 422: ValidationErrorBody, 503: ErrorDetail },
      },
    },
    async (request) => resetPassword(deps, request.body),
  );
};

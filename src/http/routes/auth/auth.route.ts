import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { signIn } from '../../../services/sign-in.js';
import { signOut } from '../../../services/sign-out.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import {
  bearerSecurity,
  ErrorDetail,
  Nullable,
  ValidationErrorBody,
  withErrors,
} from '../../schema-types.js';

const SignInBody = Type.Object({
  email: Nullable.String({ maxLength: 320 }),
  username: Nullable.String({ maxLength: 100 }),
  password: Type.String({ maxLength: 1024 }),
});

const TokenResponse = Type.Object({ access_token: Type.String(), token_type: Type.String() });

export const authRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/auth/token',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'Sign in with an e-mail or username and a password; answers a bearer token',
        body: SignInBody,
        response: { 200: TokenResponse, 401: ErrorDetail, 422: ValidationErrorBody },
      },
    },
    async (request) => signIn(deps, request.body),
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
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getUserContext } from '../../../services/get-user-context.js';
import { registerUser } from '../../../services/register-user.js';
import type { AppOptions } from '../../app.js';
import { bearerTokenOf, callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, ValidationErrorBody, withErrors } from '../../schema-types.js';
import { RegistrationBody, RegistrationResponse, UserContextView } from './users.schema.js';

export const userRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v2/users/register',
    {
      config: { public: true },
      schema: {
        tags: ['user'],
        summary:
          'Register a user with an account, a team and its vector store; again (with proof) to refresh tokens',
        description:
          "A new e-mail and provider account: 201. An existing one: 200 with its tokens updated, only with the user's bearer token, its password, or `Authorization: Bearer <REGISTRATION_SECRET>`; otherwise 409.",
        body: RegistrationBody,
        response: {
          200: RegistrationResponse,
          201: RegistrationResponse,
          409: ErrorDetail,
          422: ValidationErrorBody,
          502: ErrorDetail,
        },
      },
    },
    async (request, reply) => {
      const result = await registerUser(deps, request.body, bearerTokenOf(request));
      return reply.code(result.created ? 201 : 200).send(result.body);
    },
  );

  app.get(
    '/v1/users/me',
    {
      schema: {
        tags: ['user'],
        summary: "The caller's user_context, as drive and chat requests carry it",
        security: bearerSecurity,
        response: withErrors({ 200: UserContextView }),
      },
    },
    async (request) => getUserContext(deps, callerOf(request)),
  );
};

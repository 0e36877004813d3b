import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getUserContext } from '../../../services/get-user-context.js';
import { registerUser } from '../../../services/register-user.js';
import { requestEmailVerification } from '../../../services/request-email-verification.js';
import type { AppOptions } from '../../app-options.js';
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
          '`{"email", "password"}` (and optionally `name`) is enough for a password account; a provider sign-in sends its `type`, `provider` and `provider_account_id`. A new e-mail and provider account: 201. An existing one: 200 with its tokens updated, only with the user\'s bearer token, its password, or `Authorization: Bearer <REGISTRATION_SECRET>`; otherwise 409. Only registrations with the secret vouch for the e-mail: others create an unverified account (a verification link is mailed when SMTP_URL is set), which a later registration with the secret takes over (its password cleared, its tokens revoked). A verified account is linked to a new provider account only with its password or bearer token. Passwords need at least 8 characters; registrations without the secret are limited per client address (REGISTRATIONS_PER_HOUR_PER_ADDRESS). With `invitation` (a code from POST /v1/teams/invitations, for this e-mail) the user joins that team with the invitation\'s role, and the e-mail counts as proven; an unknown, used, withdrawn or expired code, or another e-mail, is a 403 that says which. An existing user (with the proof above) moves only from a team of their own that holds nothing else (no other members, documents or connectors), which is then deleted; otherwise 409. An invitation counts only while whoever sent it is an owner or admin of its team (removing or demoting them withdraws it). A `chatappCode` installs the Slack bot only for who will be the team\'s owner or an admin (403 otherwise, before Slack is asked). A new `password` sent with the user\'s own bearer token needs `current_password` (403 otherwise, nothing changed; the stored password sent again is a plain refresh).',
        body: RegistrationBody,
        response: {
          200: RegistrationResponse,
          201: RegistrationResponse,
          403: ErrorDetail,
          409: ErrorDetail,
          422: ValidationErrorBody,
          429: ErrorDetail,
          502: ErrorDetail,
        },
      },
    },
    async (request, reply) => {
      const result = await registerUser(deps, request.body, {
        bearerToken: bearerTokenOf(request),
        clientAddress: request.ip,
      });
      return reply.code(result.created ? 201 : 200).send(result.body);
    },
  );

  app.get(
    '/v1/users/me',
    {
      schema: {
        tags: ['user'],
        summary:
          "The caller's user_context, as drive and chat requests carry it, with their role in the team",
        security: bearerSecurity,
        response: withErrors({ 200: UserContextView }),
      },
    },
    async (request) => getUserContext(deps, callerOf(request)),
  );

  app.post(
    '/v1/users/me/verify-email',
    {
      schema: {
        tags: ['user'],
        summary: "Mail the caller a new link that verifies the account's e-mail address",
        description:
          'Needs SMTP_URL (503 otherwise); 409 when the address is already verified; 5 mails an hour.',
        security: bearerSecurity,
        response: withErrors({ 202: ErrorDetail, 409: ErrorDetail, 429: ErrorDetail, 503: ErrorDetail }),
      },
    },
    async (request, reply) => reply.code(202).send(await requestEmailVerification(deps, callerOf(request))),
  );
};

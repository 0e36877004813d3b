import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createPersonalToken } from '../../../services/create-personal-token.js';
import { getUserContext } from '../../../services/get-user-context.js';
import { listPersonalTokens } from '../../../services/list-personal-tokens.js';
import { registerUser } from '../../../services/register-user.js';
import { requestEmailVerification } from '../../../services/request-email-verification.js';
import { revokePersonalToken } from '../../../services/revoke-personal-token.js';
import type { AppOptions } from '../../app-options.js';
import { bearerTokenOf, callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, ValidationErrorBody, withErrors } from '../../schema-types.js';
import {
  NewPersonalTokenView,
  PersonalTokenBody,
  PersonalTokenList,
  PersonalTokenParams,
  RegistrationBody,
  RegistrationResponse,
  UserContextView,
} from './users.schema.js';

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

  app.post(
    '/v1/users/me/tokens',
    {
      schema: {
        tags: ['user'],
        summary: 'Make a personal access token for scripts, the CLI and API clients',
        description:
          "For people who sign in with single sign-on and have no password, and anyone who wants a token apart from their sessions: it is sent as `Authorization: Bearer <token>` (the CLI's KNOWLEDGE_TOKEN) and acts as the user, exactly as a sign-in's token does. The `token` is in this answer only and stored only hashed. `expires_in_days` (1 to 3650) sets when it stops working; without it (or null) it never expires, until revoked (DELETE /v1/users/me/tokens/{id}), or until the user signs out everywhere, changes or resets their password, or leaves the team. At most 100 unexpired tokens a user (409).",
        security: bearerSecurity,
        body: PersonalTokenBody,
        response: withErrors({ 201: NewPersonalTokenView, 409: ErrorDetail }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createPersonalToken(deps, callerOf(request), request.body)),
  );

  app.get(
    '/v1/users/me/tokens',
    {
      schema: {
        tags: ['user'],
        summary: "The caller's personal access tokens, newest first",
        description:
          'Only tokens that still work (expired ones are left out), never their secrets, never sign-in sessions. `last_used_at` is written at most about once a minute a token.',
        security: bearerSecurity,
        response: withErrors({ 200: PersonalTokenList }),
      },
    },
    async (request) => listPersonalTokens(deps, callerOf(request)),
  );

  app.delete(
    '/v1/users/me/tokens/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'Revoke one of your personal access tokens',
        description:
          "The token stops working at once (in other API processes within AUTH_CACHE_TTL_SECONDS, as after a sign-out). 404 for an id that names none of your personal tokens (another user's included).",
        security: bearerSecurity,
        params: PersonalTokenParams,
        response: withErrors({ 204: Type.Null(), 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await revokePersonalToken(deps, callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};

import { Type } from 'typebox';
import { Nullable } from '../../schema-types.js';

/**
 * The user registration record (spec 2.7). A provider sign-in sends it whole, as the original
 * service's clients do; a password sign-up needs only `email` and `password` (and maybe `name`).
 */
export const RegistrationBody = Type.Object(
  {
    type: Type.Optional(
      Type.String({ maxLength: 100, description: '`credentials` without `provider`, else `oauth`' }),
    ),
    provider: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'absent: a password account (`credentials`), which needs `password`',
      }),
    ),
    provider_account_id: Type.Optional(
      Type.String({
        maxLength: 500,
        description: "required with a provider other than `credentials`, whose accounts are the e-mail's",
      }),
    ),
    email: Type.String({ maxLength: 320 }),
    name: Type.Optional(
      Type.String({ maxLength: 500, description: 'a new user without one is named after the e-mail' }),
    ),
    refresh_token: Nullable.String({ maxLength: 16_384 }),
    access_token: Nullable.String({ maxLength: 16_384 }),
    expires_at: Nullable.Integer(),
    id_token: Nullable.String({ maxLength: 16_384 }),
    scope: Nullable.String({ maxLength: 4096 }),
    session_state: Nullable.String({ maxLength: 4096 }),
    token_type: Nullable.String({ maxLength: 100 }),
    username: Nullable.String({ maxLength: 100 }),
    password: Nullable.String({ maxLength: 1024, description: 'at least 8 characters' }),
    current_password: Nullable.String({
      maxLength: 1024,
      description:
        "with the user's own bearer token and a `password` that is not the stored one: the current password, which a change needs (403 without it)",
    }),
    chatappCode: Nullable.String({
      maxLength: 1024,
      description:
        "Slack's OAuth v2 code: installs the bot for the team, only for someone who will be its owner or an admin (403 otherwise, the code not exchanged)",
    }),
    invitation: Nullable.String({
      maxLength: 200,
      description:
        "an invitation's code (POST /v1/teams/invitations): the user joins that team with the invitation's role instead of getting a team of their own; the e-mail must be the invitation's (403 otherwise, and for a code that is unknown, used, withdrawn or expired)",
    }),
  },
  {
    // The example /docs fills in: a password sign-up.
    examples: [{ email: 'pat@example.com', password: 'correct horse battery', name: 'Pat' }],
  },
);

const Timestamps = {
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const VectorStoreView = Type.Object({
  id: Type.Integer(),
  index_name: Type.String(),
  environment: Type.String({ description: '`embedded` (PGlite) or `postgres`' }),
  namespaces: Type.Array(Type.String()),
  ...Timestamps,
  provider: Type.String(),
});

export const RegistrationResponse = Type.Object({
  message: Type.String(),
  user: Type.Object({
    id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    username: Type.Union([Type.String(), Type.Null()]),
    is_active: Type.Boolean(),
    team_id: Type.Union([Type.Integer(), Type.Null()]),
    role: Type.String({ description: '`owner` of a team of their own, or the role an invitation gave' }),
    ...Timestamps,
  }),
  team: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    owner_user_id: Type.Union([Type.Integer(), Type.Null()]),
    ...Timestamps,
  }),
  vector_store: VectorStoreView,
  access_token: Type.String(),
  token_type: Type.String(),
  email_verification: Type.String({
    description:
      '`verified` (the e-mail is proven), `mail_sent` (a verification link is on its way) or `unverified`',
  }),
  chatapp: Type.Optional(
    Type.Object({
      status: Type.String({ description: '`installed` or `not_configured`' }),
      detail: Type.Optional(Type.String()),
      connector_id: Type.Optional(Type.Integer()),
      slack_team_id: Type.Optional(Type.String()),
      slack_team_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
  ),
});

/** The caller's `user_context` (spec 2.1). */
export const UserContextView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  updated_at: Type.String(),
  is_active: Type.Boolean(),
  team_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  connectors: Type.Array(Type.Object({ name: Type.String(), id: Type.Array(Type.Integer()) })),
  vector_store: VectorStoreView,
  role: Type.Unsafe<'owner' | 'admin' | 'member'>({
    type: 'string',
    enum: ['owner', 'admin', 'member'],
    description: "the caller's role in the team: owners and admins manage members and connections",
  }),
  email_verified: Type.Boolean({
    description:
      'whether the address is proven (a mailed link, the trusted front end): until it is, documents shared with the address or its domain stay closed to the caller',
  }),
});

/** POST /v1/users/me/tokens */
export const PersonalTokenBody = Type.Object(
  {
    name: Type.String({
      maxLength: 1000,
      description: 'what the token is for, 1 to 100 characters once trimmed (shown in the list)',
    }),
    expires_in_days: Nullable.Integer({
      minimum: 1,
      maximum: 3650,
      description: 'the token stops working this many days from now; absent or null: it never expires',
    }),
  },
  { examples: [{ name: 'laptop CLI', expires_in_days: 90 }] },
);

const PersonalTokenFields = {
  id: Type.String({ format: 'uuid', description: 'the id to revoke it by (not the secret)' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'null: it never expires',
  }),
};

export const NewPersonalTokenView = Type.Object({
  ...PersonalTokenFields,
  token: Type.String({
    description: 'the secret, sent as `Authorization: Bearer <token>`: shown only here, stored only hashed',
  }),
});

export const PersonalTokenList = Type.Object({
  tokens: Type.Array(
    Type.Object({
      ...PersonalTokenFields,
      last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'when a request last used it, to about a minute; null: never used',
      }),
    }),
  ),
});

export const PersonalTokenParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

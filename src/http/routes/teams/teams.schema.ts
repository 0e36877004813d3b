import { Type } from 'typebox';

const ROLE_DESCRIPTION =
  'owner (one a team), admin or member: owners and admins manage members and connections';

/** POST /v1/teams/invitations */
export const InvitationBody = Type.Object(
  {
    email: Type.String({ maxLength: 320, description: 'normalised as registration does (lower-cased)' }),
    role: Type.Unsafe<'member' | 'admin'>({
      type: 'string',
      enum: ['member', 'admin'],
      description: 'the role the invitee will have (ownership is handed over, not given by invitation)',
    }),
  },
  { examples: [{ email: 'bob@example.com', role: 'member' }] },
);

export const NewInvitationView = Type.Object({
  invitation_id: Type.String({ format: 'uuid' }),
  code: Type.String({
    description:
      'the code to register with (`"invitation"` of POST /v2/users/register): shown once, stored only hashed',
  }),
  email: Type.String(),
  role: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

export const InvitationList = Type.Object({
  invitations: Type.Array(
    Type.Object({
      invitation_id: Type.String({ format: 'uuid' }),
      email: Type.String(),
      role: Type.String(),
      expires_at: Type.String({ format: 'date-time' }),
      created_at: Type.String({ format: 'date-time' }),
    }),
  ),
});

export const InvitationParams = Type.Object({ invitation_id: Type.String({ maxLength: 100 }) });

export const MemberView = Type.Object({
  user_id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: Type.String({ description: ROLE_DESCRIPTION }),
  joined_at: Type.String({ format: 'date-time' }),
});

export const MemberList = Type.Object({ members: Type.Array(MemberView) });

export const MemberParams = Type.Object({ user_id: Type.String({ maxLength: 20 }) });

/** PATCH /v1/teams/members/{user_id} */
export const RoleChangeBody = Type.Object(
  {
    role: Type.Unsafe<'owner' | 'admin' | 'member'>({
      type: 'string',
      enum: ['owner', 'admin', 'member'],
      description:
        '`owner` hands ownership over (the owner only; they become an admin); otherwise `admin` or `member`',
    }),
  },
  { examples: [{ role: 'admin' }] },
);

const SIGN_IN_DOMAINS_DESCRIPTION =
  'e-mail domains (such as `example.com`) whose people, signing in with single sign-on for the first time without an invitation, join the team as members: lower-cased, sorted';

export const TeamSettingsView = Type.Object({
  sign_in_domains: Type.Array(Type.String(), { description: SIGN_IN_DOMAINS_DESCRIPTION }),
});

/** PATCH /v1/teams/settings */
export const TeamSettingsBody = Type.Object(
  {
    sign_in_domains: Type.Array(Type.String({ maxLength: 253 }), {
      maxItems: 50,
      description:
        "the team's whole list (it replaces the stored one): domains the team already claims may stay; a new one must be the domain of your own proven address",
    }),
  },
  { examples: [{ sign_in_domains: ['example.com'] }] },
);

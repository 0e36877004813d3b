import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { changeMemberRole } from '../../../services/change-member-role.js';
import { getTeamSettings } from '../../../services/get-team-settings.js';
import { inviteMember } from '../../../services/invite-member.js';
import { listInvitations } from '../../../services/list-invitations.js';
import { listMembers } from '../../../services/list-members.js';
import { removeMember } from '../../../services/remove-member.js';
import { updateTeamSettings } from '../../../services/update-team-settings.js';
import { withdrawInvitation } from '../../../services/withdraw-invitation.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import {
  InvitationBody,
  InvitationList,
  InvitationParams,
  MemberList,
  MemberParams,
  MemberView,
  NewInvitationView,
  RoleChangeBody,
  TeamSettingsBody,
  TeamSettingsView,
} from './teams.schema.js';

/** The caller's team: its members and roles, invitations to join it, and its settings. */
export const teamRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/teams/invitations',
    {
      schema: {
        tags: ['team'],
        summary: 'Invite an e-mail address into the team (owners and admins)',
        description:
          'Answers the invitation with its `code`, which registration takes as `"invitation"` (POST /v2/users/register) for that e-mail within 7 days; the code is shown only here. A new invitation for an address withdraws the open ones for it. 403 for a member; 409 when the address is already in the team; 422 for an address registration would refuse.',
        security: bearerSecurity,
        body: InvitationBody,
        response: withErrors({ 201: NewInvitationView, 403: ErrorDetail, 409: ErrorDetail }),
      },
    },
    async (request, reply) => reply.code(201).send(await inviteMember(deps, callerOf(request), request.body)),
  );

  app.get(
    '/v1/teams/invitations',
    {
      schema: {
        tags: ['team'],
        summary: "The team's open invitations, newest first (owners and admins)",
        description: 'Open: not used, withdrawn or expired. Codes are never listed.',
        security: bearerSecurity,
        response: withErrors({ 200: InvitationList, 403: ErrorDetail }),
      },
    },
    async (request) => listInvitations(deps, callerOf(request)),
  );

  app.delete(
    '/v1/teams/invitations/:invitation_id',
    {
      schema: {
        tags: ['team'],
        summary: 'Withdraw an invitation: its code no longer registers anyone (owners and admins)',
        description:
          "204, also for one already withdrawn or expired; 404 for another team's or an unknown id; 409 for one already used (remove the member instead).",
        security: bearerSecurity,
        params: InvitationParams,
        response: withErrors({ 204: Type.Null(), 403: ErrorDetail, 404: ErrorDetail, 409: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await withdrawInvitation(deps, callerOf(request), request.params.invitation_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/teams/members',
    {
      schema: {
        tags: ['team'],
        summary: "Everyone in the caller's team with their roles, longest-standing first",
        security: bearerSecurity,
        response: withErrors({ 200: MemberList }),
      },
    },
    async (request) => listMembers(deps, callerOf(request)),
  );

  app.patch(
    '/v1/teams/members/:user_id',
    {
      schema: {
        tags: ['team'],
        summary: "Change a member's role (owners and admins)",
        description:
          'A team keeps exactly one owner. `"role": "owner"` is the owner handing ownership to another member, who becomes the owner while the old owner becomes an admin (403 from an admin). The owner\'s own role changes no other way (409); an admin cannot change the owner\'s (403). Answers the member as now stored; 404 when the user is not in the team.',
        security: bearerSecurity,
        params: MemberParams,
        body: RoleChangeBody,
        response: withErrors({ 200: MemberView, 403: ErrorDetail, 404: ErrorDetail, 409: ErrorDetail }),
      },
    },
    async (request) => changeMemberRole(deps, callerOf(request), request.params.user_id, request.body.role),
  );

  app.delete(
    '/v1/teams/members/:user_id',
    {
      schema: {
        tags: ['team'],
        summary: 'Remove a member from the team, or leave it (your own user id)',
        description:
          "Owners and admins remove members and admins; anyone may leave; the owner is never removed (403) and leaves only after handing ownership over (409). The user is deleted: their tokens stop working at once, their chats and private uploads are deleted, their unfinished index jobs fail; documents they shared with the team, and Drive files with their source's permissions, stay. 404 when the user is not in the team.",
        security: bearerSecurity,
        params: MemberParams,
        response: withErrors({ 204: Type.Null(), 403: ErrorDetail, 404: ErrorDetail, 409: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await removeMember(deps, callerOf(request), request.params.user_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/teams/settings',
    {
      schema: {
        tags: ['team'],
        summary: "The team's settings: its sign-in domains (owners and admins)",
        description:
          'A person whose proven address is in one of `sign_in_domains`, signing in with single sign-on for the first time without an invitation, joins this team as a member. 403 for a member.',
        security: bearerSecurity,
        response: withErrors({ 200: TeamSettingsView, 403: ErrorDetail }),
      },
    },
    async (request) => getTeamSettings(deps, callerOf(request)),
  );

  app.patch(
    '/v1/teams/settings',
    {
      schema: {
        tags: ['team'],
        summary: "Change the team's settings: replace its sign-in domains (owners and admins)",
        description:
          "`sign_in_domains` replaces the team's list (at most 50; lower-cased, internationalised names in their `xn--` form). Domains the team already claims may stay whoever asks; a new one must be the domain of the caller's own proven address (403 otherwise, and for a caller whose address is not proven yet), since it admits everyone with an address there. A domain another team claims is a 409 (one team a domain). 422 for what is not a domain name (a scheme, `@`, spaces, an IP address, no dot) and for public mail services such as gmail.com, where anyone can have an address. Answers the settings as now stored; 403 for a member.",
        security: bearerSecurity,
        body: TeamSettingsBody,
        response: withErrors({ 200: TeamSettingsView, 403: ErrorDetail, 409: ErrorDetail }),
      },
    },
    async (request) => updateTeamSettings(deps, callerOf(request), request.body),
  );
};

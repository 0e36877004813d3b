import { randomUUID } from 'node:crypto';
import { type Caller, managesTeam } from '../caller.js';
import type { InvitedRole } from '../db/repositories/teams.js';
import { ServiceError } from '../errors.js';
import { generateEmailCode, hashAccessToken } from '../security/access-tokens.js';
import { normalizeEmail } from '../security/email-address.js';
import type { ServiceDependencies } from './dependencies.js';

/** How long an invitation's code works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface InvitationInput {
  readonly email: string;
  readonly role: InvitedRole;
}

/** A new invitation, with the code its link carries: shown this once, stored only as a hash. */
export interface NewInvitationView {
  readonly invitation_id: string;
  readonly code: string;
  readonly email: string;
  readonly role: InvitedRole;
  readonly expires_at: string;
}

/**
 * Invites an address into the caller's team (owners and admins only) with the role it will have.
 * The e-mail is normalised as registration does; someone already in the team is a conflict. A new
 * invitation for an address withdraws the team's earlier open ones for it, so only the latest
 * link works.
 */
export async function inviteMember(
  deps: ServiceDependencies,
  caller: Caller,
  input: InvitationInput,
): Promise<NewInvitationView> {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may invite members");
  }
  const normalized = normalizeEmail(input.email);
  if (!normalized.ok) {
    throw ServiceError.validation([
      { type: 'value_error', loc: ['body', 'email'], msg: normalized.problem, input: input.email },
    ]);
  }
  if (input.role !== 'member' && input.role !== 'admin') {
    throw ServiceError.validation([
      { type: 'enum', loc: ['body', 'role'], msg: "Input should be 'member' or 'admin'", input: input.role },
    ]);
  }
  const email = normalized.email;
  const code = generateEmailCode();
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const invitation = await deps.data.transaction(async (tx) => {
    if (await tx.teams.teamHasMemberWithEmail(caller.teamId, email)) {
      throw new ServiceError('conflict', `${email} is already a member of this team`);
    }
    await tx.teams.withdrawOpenInvitationsFor(caller.teamId, email, now);
    return tx.teams.insertInvitation({
      id: randomUUID(),
      teamId: caller.teamId,
      email,
      role: input.role,
      codeHash: hashAccessToken(code),
      invitedBy: caller.userId,
      createdAt: now,
      expiresAt,
    });
  });
  return {
    invitation_id: invitation.id,
    code,
    email: invitation.email,
    role: input.role,
    expires_at: invitation.expiresAt.toISOString(),
  };
}

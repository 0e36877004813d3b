import { describe, expect, it } from 'vitest';
import type { CurrentUser, TeamMember } from '../api/types';
import { callerRole, canManageMember, invitationLink, managesTeam, roleWord } from './members';

const ann: CurrentUser = { id: 1, email: 'ann@example.com', team_id: 3, is_active: true, role: 'owner' };
const member = (user_id: number, role: TeamMember['role']): TeamMember => ({
  user_id,
  email: `user${user_id}@example.com`,
  name: `User ${user_id}`,
  role,
  joined_at: '2025-01-02T03:04:05Z',
});

describe('members', () => {
  it('builds the invitation link on this origin, the code escaped', () => {
    expect(invitationLink('https://answers.example.com', 'abc-123_x')).toBe(
      'https://answers.example.com/join?invitation=abc-123_x',
    );
    expect(invitationLink('http://127.0.0.1:8000', 'a+b/c=')).toBe(
      'http://127.0.0.1:8000/join?invitation=a%2Bb%2Fc%3D',
    );
    expect(new URL(invitationLink('http://x.test', 'a+b/c=')).searchParams.get('invitation')).toBe('a+b/c=');
  });

  it('lets owners and admins manage, not members', () => {
    expect(managesTeam('owner')).toBe(true);
    expect(managesTeam('admin')).toBe(true);
    expect(managesTeam('member')).toBe(false);
    expect(managesTeam(undefined)).toBe(false);
  });

  it("takes the caller's role from the member list first", () => {
    expect(callerRole(ann, undefined)).toBe('owner');
    expect(callerRole(ann, [member(1, 'admin')])).toBe('admin');
    expect(callerRole({ ...ann, role: undefined }, [member(2, 'owner')])).toBeUndefined();
  });

  it('never offers to change the owner or oneself', () => {
    expect(canManageMember(1, 'owner', member(2, 'member'))).toBe(true);
    expect(canManageMember(1, 'admin', member(2, 'admin'))).toBe(true);
    expect(canManageMember(1, 'admin', member(2, 'owner'))).toBe(false);
    expect(canManageMember(1, 'owner', member(1, 'owner'))).toBe(false);
    expect(canManageMember(1, 'member', member(2, 'member'))).toBe(false);
  });

  it('says roles in words', () => {
    expect(roleWord('admin')).toBe('admin');
    expect(roleWord('auditor')).toBe('auditor');
  });
});

import { useState } from 'react';
import type { AssignableRole } from '../api/teams';
import type { TeamMember } from '../api/types';
import { formatDate } from '../format/dates';
import { canManageMember, roleWord } from '../format/members';
import { focusPageHeading } from '../hooks/focus';
import { BreakableName } from './BreakableName';
import { ConfirmDialog } from './ConfirmDialog';

interface MembersTableProps {
  members: readonly TeamMember[];
  /** The signed-in user: their own row is never changed from here. */
  callerId: number;
  /** The caller's role: owners and admins get a role select and `Remove` on the others' rows. */
  callerRole: string | undefined;
  /** A role being saved, shown meanwhile instead of the stored one. */
  pendingRoles: Readonly<Record<number, AssignableRole>>;
  onChangeRole: (member: TeamMember, role: AssignableRole) => void;
  onRemove: (member: TeamMember) => Promise<void>;
}

function displayName(member: TeamMember): string {
  return member.name.trim() === '' ? member.email : member.name;
}

/**
 * The team's members: name, e-mail, role (a select for managers), joined, and remove. A table; on a
 * narrow screen the styles lay each row out as a card, its cells labelled by `data-label`.
 */
export function MembersTable({
  members,
  callerId,
  callerRole,
  pendingRoles,
  onChangeRole,
  onRemove,
}: MembersTableProps) {
  const [removing, setRemoving] = useState<TeamMember | undefined>(undefined);
  const anyManaged = members.some((member) => canManageMember(callerId, callerRole, member));
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a narrow desktop window; a keyboard must reach it to scroll it */}
      <section className="table-scroll" aria-labelledby="members-caption" tabIndex={0}>
        <table className="members-table">
          <caption id="members-caption">Team members ({members.length})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {anyManaged ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => {
              const managed = canManageMember(callerId, callerRole, member);
              const selectId = `member-role-${member.user_id}`;
              return (
                <tr key={member.user_id}>
                  <th scope="row" className="member-name">
                    <BreakableName text={displayName(member)} />
                    {member.user_id === callerId ? <span className="muted"> (you)</span> : null}
                  </th>
                  <td data-label="Email" className="member-email">
                    <BreakableName text={member.email} />
                  </td>
                  <td data-label="Role">
                    {managed ? (
                      <>
                        <label htmlFor={selectId} className="visually-hidden">
                          Role of {member.email}
                        </label>
                        <select
                          id={selectId}
                          value={pendingRoles[member.user_id] ?? member.role}
                          onChange={(event) => onChangeRole(member, event.target.value as AssignableRole)}
                        >
                          <option value="member">member</option>
                          <option value="admin">admin</option>
                        </select>
                      </>
                    ) : (
                      roleWord(member.role)
                    )}
                  </td>
                  <td data-label="Joined">
                    <time dateTime={member.joined_at}>{formatDate(member.joined_at)}</time>
                  </td>
                  {anyManaged ? (
                    <td className="member-actions">
                      {managed ? (
                        <button type="button" className="button-quiet" onClick={() => setRemoving(member)}>
                          Remove<span className="visually-hidden"> {member.email}</span>
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      {removing === undefined ? null : (
        <ConfirmDialog
          title="Remove this member?"
          message={`${displayName(removing)} (${removing.email}) leaves the team at once: signed out everywhere, their account, chats and private uploads deleted. The documents they shared with the team, and Drive files with their sources’ permissions, stay.`}
          confirmLabel="Remove"
          busyLabel="Removing…"
          onConfirm={() => onRemove(removing)}
          onClose={(confirmed) => {
            setRemoving(undefined);
            if (confirmed) window.setTimeout(focusPageHeading);
          }}
        />
      )}
    </>
  );
}

import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { ApiError, describeError } from '../api/http';
import {
  type AssignableRole,
  changeMemberRole,
  listInvitations,
  listMembers,
  removeMember,
  withdrawInvitation,
} from '../api/teams';
import type { CurrentUser, Invitation, NewInvitation, TeamMember } from '../api/types';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { InvitationLink } from '../components/InvitationLink';
import { InvitationsList } from '../components/InvitationsList';
import { InviteForm } from '../components/InviteForm';
import { MembersTable } from '../components/MembersTable';
import { callerRole, managesTeam } from '../format/members';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { shownValue, useLoader } from '../hooks/useLoader';

/** Loaded only for the team's owner and admins, the ones who see it. */
const SignInDomainsSection = lazy(() =>
  import('../components/SignInDomainsSection').then((module) => ({ default: module.SignInDomainsSection })),
);

/** A counter to load again with (useLoader's key), bumped by hand and when the tab is shown again. */
function useReloadKey(): [number, () => void] {
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((current) => current + 1), []);
  useEffect(() => {
    // Someone may have joined (or an invitation expired) while the page sat in a hidden tab.
    const onVisible = () => {
      if (document.visibilityState === 'visible') reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [reload]);
  return [version, reload];
}

/**
 * The team's members. Owners and admins invite by e-mail (the invitation's link shown to copy),
 * see and withdraw open invitations, change roles and remove members, and choose the team's
 * sign-in domains; everyone else sees the list.
 */
export function MembersPage({ user }: { user: CurrentUser }) {
  useDocumentTitle('Members');
  const [membersVersion, reloadMembers] = useReloadKey();
  const [invitationsVersion, reloadInvitations] = useReloadKey();
  const loadedMembers = useLoader(`members|${membersVersion}`, listMembers);
  const members = shownValue(loadedMembers);
  const role = callerRole(user, members);
  const manager = managesTeam(role);
  const loadedInvitations = useLoader(manager ? `invitations|${invitationsVersion}` : null, listInvitations);
  const invitations = shownValue(loadedInvitations);

  const [invited, setInvited] = useState<NewInvitation | undefined>(undefined);
  const [pendingRoles, setPendingRoles] = useState<Record<number, AssignableRole>>({});
  const [actionError, setActionError] = useState<string | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');

  // A fresh list has every saved role: what was shown meanwhile is no longer needed.
  useEffect(() => {
    if (loadedMembers.state === 'loaded') setPendingRoles({});
  }, [loadedMembers]);

  function onInvited(invitation: NewInvitation) {
    setActionError(undefined);
    setInvited(invitation);
    setAnnouncement(`Invitation for ${invitation.email} made: copy its link below the form.`);
    reloadInvitations();
  }

  async function changeRole(member: TeamMember, newRole: AssignableRole) {
    setActionError(undefined);
    setPendingRoles((current) => ({ ...current, [member.user_id]: newRole }));
    try {
      await changeMemberRole(member.user_id, newRole);
      setAnnouncement(`${member.email} is now ${newRole}.`);
      reloadMembers();
    } catch (error) {
      setPendingRoles((current) => {
        const { [member.user_id]: _dropped, ...rest } = current;
        return rest;
      });
      setActionError(`The role of ${member.email} was not changed: ${describeError(error)}`);
    }
  }

  async function remove(member: TeamMember) {
    setActionError(undefined);
    // A failure is shown in the dialog, which stays open.
    await removeMember(member.user_id);
    setAnnouncement(`${member.email} was removed from the team.`);
    reloadMembers();
  }

  async function withdraw(invitation: Invitation) {
    setActionError(undefined);
    try {
      await withdrawInvitation(invitation.invitation_id);
      if (invited?.invitation_id === invitation.invitation_id) setInvited(undefined);
      setAnnouncement(`The invitation for ${invitation.email} was withdrawn: its link no longer works.`);
      reloadInvitations();
    } catch (error) {
      setActionError(`The invitation for ${invitation.email} was not withdrawn: ${describeError(error)}`);
    }
  }

  return (
    <>
      <h1>Members</h1>
      <p className="intro">
        {manager
          ? 'Everyone in your team asks questions of its documents, each seeing only what they may open at the source. Invite colleagues by e-mail, and choose who manages the team.'
          : 'Everyone in your team asks questions of its documents, each seeing only what they may open at the source. The team’s owner and admins invite and remove members.'}
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {actionError === undefined ? null : <ErrorAlert message={actionError} />}
      {manager ? (
        <section className="panel" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite a member</h2>
          <InviteForm onInvited={onInvited} />
          {invited === undefined ? null : <InvitationLink key={invited.code} invitation={invited} />}
          <h3>Open invitations</h3>
          {loadedInvitations.state === 'failed' ? (
            <ErrorAlert message={`The invitations could not be loaded: ${loadedInvitations.message}`}>
              <button type="button" className="button-secondary" onClick={reloadInvitations}>
                Try again
              </button>
            </ErrorAlert>
          ) : null}
          {loadedInvitations.state === 'loading' && invitations === undefined ? (
            <Loading label="Loading the invitations…" />
          ) : null}
          {invitations === undefined ? null : (
            <InvitationsList invitations={invitations} onWithdraw={withdraw} />
          )}
        </section>
      ) : null}
      <section className="panel" aria-labelledby="members-heading">
        <h2 id="members-heading">Team</h2>
        {loadedMembers.state === 'failed' ? (
          loadedMembers.error instanceof ApiError && loadedMembers.error.status === 403 ? (
            <p>Only the team’s owner and admins see its members.</p>
          ) : (
            <ErrorAlert message={`The members could not be loaded: ${loadedMembers.message}`}>
              <button type="button" className="button-secondary" onClick={reloadMembers}>
                Try again
              </button>
            </ErrorAlert>
          )
        ) : null}
        {loadedMembers.state === 'loading' && members === undefined ? (
          <Loading label="Loading the members…" />
        ) : null}
        {members === undefined ? null : (
          <MembersTable
            members={members}
            callerId={user.id}
            callerRole={role}
            pendingRoles={pendingRoles}
            onChangeRole={changeRole}
            onRemove={remove}
          />
        )}
      </section>
      {manager ? (
        <Suspense fallback={<Loading label="Loading the sign-in domains…" />}>
          <SignInDomainsSection />
        </Suspense>
      ) : null}
    </>
  );
}

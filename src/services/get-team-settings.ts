import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** The team's settings as owners and admins see and change them. */
export interface TeamSettingsView {
  /** Lower-cased, sorted: a first single sign-on from an address there joins the team as a member. */
  readonly sign_in_domains: string[];
}

/** The caller's team's settings (owners and admins only). */
export async function getTeamSettings(deps: ServiceDependencies, caller: Caller): Promise<TeamSettingsView> {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may see the team's settings");
  }
  return { sign_in_domains: await deps.data.teamSignInDomains.listTeamSignInDomains(caller.teamId) };
}

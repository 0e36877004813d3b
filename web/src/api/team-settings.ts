import { requestJson } from './http';
import type { TeamSettings } from './types';

/** GET /v1/teams/settings (owner or admin): the team's sign-in domains. */
export function getTeamSettings(signal?: AbortSignal): Promise<TeamSettings> {
  return requestJson<TeamSettings>('GET', '/v1/teams/settings', signal === undefined ? {} : { signal });
}

/**
 * PATCH /v1/teams/settings (owner or admin): the whole new list of sign-in domains. 403 for a
 * domain other than that of the caller's own proven address, 409 when another team claims it, 422
 * for a malformed or public one (an e-mail provider's).
 */
export function saveSignInDomains(domains: readonly string[]): Promise<TeamSettings> {
  return requestJson<TeamSettings>('PATCH', '/v1/teams/settings', { body: { sign_in_domains: domains } });
}

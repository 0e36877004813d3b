import { emailDomain } from '../access.js';
import { type Caller, managesTeam } from '../caller.js';
import { ServiceError, type ValidationIssue } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import type { TeamSettingsView } from './get-team-settings.js';
import { MAX_SIGN_IN_DOMAINS, normalizeSignInDomain } from './sign-in-domains.js';

export interface TeamSettingsInput {
  readonly sign_in_domains: readonly string[];
}

/**
 * Replaces the team's sign-in domains (owners and admins only). A domain the team already claims
 * may stay whoever asks; a new one admits strangers to the team, so it must be the domain of the
 * caller's own proven address: nobody claims a company they cannot show they belong to. A domain
 * another team claims is a conflict (one team a domain).
 */
export async function updateTeamSettings(
  deps: ServiceDependencies,
  caller: Caller,
  input: TeamSettingsInput,
): Promise<TeamSettingsView> {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may change the team's settings");
  }
  const wanted = signInDomainsOf(input.sign_in_domains);
  const ownDomain = caller.emailVerified ? emailDomain(caller.email) : undefined;
  try {
    await deps.data.transaction(async (tx) => {
      // Concurrent changes of one team's settings go one at a time.
      await tx.teams.lockTeam(caller.teamId);
      const held = new Set(await tx.teamSignInDomains.listTeamSignInDomains(caller.teamId));
      const added = wanted.filter((domain) => !held.has(domain));
      for (const domain of added) {
        if (ownDomain === undefined) {
          throw new ServiceError(
            'forbidden',
            `You may claim only the domain of your own proven address, and yours is not proven yet: verify it (POST /v1/users/me/verify-email) to claim ${emailDomain(caller.email)}`,
          );
        }
        if (domain !== ownDomain) {
          throw new ServiceError(
            'forbidden',
            `You may claim only ${ownDomain}, the domain of your own proven address, not ${domain}`,
          );
        }
      }
      await tx.teamSignInDomains.releaseTeamSignInDomains(caller.teamId, wanted);
      await tx.teamSignInDomains.claimTeamSignInDomains(caller.teamId, added);
    });
  } catch (error) {
    // Only the caller's own domain can be new, so it is the one another team holds.
    if (deps.data.violatedUniqueIndex(error) !== undefined && ownDomain !== undefined) {
      throw new ServiceError('conflict', `${ownDomain} is claimed by another team`);
    }
    throw error;
  }
  return { sign_in_domains: wanted };
}

/** The domains normalised, distinct and sorted; every malformed or public one a 422 issue. */
function signInDomainsOf(raw: readonly string[]): string[] {
  const issues: ValidationIssue[] = [];
  const domains = new Set<string>();
  raw.forEach((value, index) => {
    const normalized = normalizeSignInDomain(value);
    if (normalized.ok) domains.add(normalized.domain);
    else {
      issues.push({
        type: 'value_error',
        loc: ['body', 'sign_in_domains', index],
        msg: `Value error, ${normalized.problem}`,
        input: value,
      });
    }
  });
  if (issues.length === 0 && domains.size > MAX_SIGN_IN_DOMAINS) {
    issues.push({
      type: 'too_long',
      loc: ['body', 'sign_in_domains'],
      msg: `List should have at most ${MAX_SIGN_IN_DOMAINS} items after validation, not ${domains.size}`,
      ctx: { field_type: 'List', max_length: MAX_SIGN_IN_DOMAINS },
    });
  }
  if (issues.length > 0) throw ServiceError.validation(issues);
  return [...domains].sort();
}

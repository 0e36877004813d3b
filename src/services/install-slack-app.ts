import type { SlackInstallation } from '../adapters/slack/slack-oauth.js';
import { type Caller, managesTeam } from '../caller.js';
import type { Repositories } from '../db/repositories.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

export const SLACK_WORKSPACE_TAKEN = 'This Slack workspace is already connected to another team';

/**
 * The bot answers anyone in its workspace from the team's team-wide documents, and keeps answering
 * after whoever installed it leaves: only those trusted with the team's members install it.
 */
export const NOT_AN_INSTALLER = "Only the team's owner and admins may change the Slack connection";

/** What installing the bot into a workspace made: the team's Slack connector. */
export interface SlackInstallOutcome {
  readonly status: 'installed';
  readonly connector_id: number;
  readonly slack_team_id: string;
  readonly slack_team_name: string | null;
}

/**
 * "Add to Slack" for a signed-in user: the OAuth v2 `code` Slack's redirect brought back is
 * exchanged (the client secret stays here) and the workspace's bot installed for the caller's
 * team, as registration's `chatappCode` does. One workspace belongs to one team. Owners and
 * admins only (`NOT_AN_INSTALLER`), checked before the exchange and again as it is saved.
 */
export async function installSlackApp(
  deps: ServiceDependencies,
  caller: Caller,
  code: string,
): Promise<SlackInstallOutcome> {
  // Checked before the code is exchanged: a member's code is not spent on nothing.
  if (!managesTeam(caller)) throw new ServiceError('forbidden', NOT_AN_INSTALLER);
  const installation = await exchangeSlackCode(deps, code);
  if (installation === undefined) {
    throw new ServiceError(
      'unavailable',
      'Slack is not configured on this server (set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET)',
    );
  }
  try {
    return await deps.data.transaction(async (tx) => {
      // The caller's role is read again under the team's lock: a demotion while Slack answered counts.
      await tx.teams.lockTeam(caller.teamId);
      return saveSlackInstallation(
        deps,
        tx,
        { teamId: caller.teamId, installerId: caller.userId },
        installation,
      );
    });
  } catch (error) {
    // Two teams installing the same workspace at once: the loser hits the unique index.
    if (deps.data.violatedUniqueIndex(error) === 'connectors_slug_external_unique') {
      throw new ServiceError('conflict', SLACK_WORKSPACE_TAKEN);
    }
    throw error;
  }
}

/** The installation a code stands for; undefined without a code or when Slack is not configured. */
export async function exchangeSlackCode(
  deps: ServiceDependencies,
  code: string | null | undefined,
): Promise<SlackInstallation | undefined> {
  if (code === undefined || code === null || code === '' || deps.slackOAuth === undefined) return undefined;
  return deps.slackOAuth.exchangeCode(code);
}

/**
 * Stores the workspace's installation as the team's Slack connector (its bot token sealed), or
 * refreshes it when the team installs again; another team's workspace is a conflict. The installer
 * must be an owner or admin of the team as stored now (403 otherwise): `tx` holds the team's lock
 * or the installer's row, so a demotion or removal under way is either seen or waits for the commit.
 */
export async function saveSlackInstallation(
  deps: ServiceDependencies,
  tx: Repositories,
  target: { readonly teamId: number; readonly installerId: number },
  installation: SlackInstallation,
): Promise<SlackInstallOutcome> {
  const { teamId } = target;
  const installer = await tx.teams.findTeamMember(teamId, target.installerId);
  if (installer === undefined || !managesTeam(installer))
    throw new ServiceError('forbidden', NOT_AN_INSTALLER);
  const config = {
    slack_team_id: installation.slackTeamId,
    slack_team_name: installation.slackTeamName,
    enterprise_id: installation.enterpriseId,
    app_id: installation.appId,
    bot_user_id: installation.botUserId,
    scope: installation.scope,
  };
  const secretsSealed = deps.secrets.sealJson({ bot_token: installation.botToken });
  const current = await tx.connectors.findSlackConnector(installation.slackTeamId);
  if (current !== undefined && current.teamId !== teamId) {
    throw new ServiceError('conflict', SLACK_WORKSPACE_TAKEN);
  }
  let connectorId: number;
  if (current === undefined) {
    connectorId = await tx.connectors.insertSlackConnector({
      teamId,
      name: `Slack: ${installation.slackTeamName ?? installation.slackTeamId}`,
      slackTeamId: installation.slackTeamId,
      config,
      secretsSealed,
    });
  } else {
    await tx.connectors.refreshSlackConnector(current.id, { config, secretsSealed });
    connectorId = current.id;
  }
  return {
    status: 'installed',
    connector_id: connectorId,
    slack_team_id: installation.slackTeamId,
    slack_team_name: installation.slackTeamName,
  };
}

import type { SqlExecutor } from '../sql-connection.js';

/** queued: recorded, its job not done; answered / refused: a reply was posted; failed: given up. */
export type ChatappEventStatus = 'queued' | 'answered' | 'refused' | 'failed';

/** A Slack workspace's installation of the bot: the `chatapp` connector stored at registration. */
export interface ChatappInstallation {
  readonly connectorId: number;
  readonly teamId: number;
  /** The bot's own user id in that workspace (its messages and mentions are recognised by it). */
  readonly botUserId: string | undefined;
  readonly secretsSealed: string | null;
}

/** The installation linked to a Slack workspace (team) id, if any. */
export async function findChatappInstallation(
  db: SqlExecutor,
  workspaceId: string,
): Promise<ChatappInstallation | undefined> {
  return (await findChatappInstallations(db, [workspaceId])).get(workspaceId);
}

/** The installations of these workspaces, by workspace id; unknown ones are absent. */
export async function findChatappInstallations(
  db: SqlExecutor,
  workspaceIds: readonly string[],
): Promise<Map<string, ChatappInstallation>> {
  const { rows } = await db.executeSql<{
    external_id: string;
    id: number;
    team_id: number;
    bot_user_id: string | null;
    secrets_sealed: string | null;
  }>(
    `SELECT external_id, id, team_id, config->>'bot_user_id' AS bot_user_id, secrets_sealed
       FROM connectors WHERE slug = 'chatapp' AND external_id = ANY($1::text[])`,
    [[...new Set(workspaceIds)]],
  );
  return new Map(
    rows.map((row) => [
      String(row.external_id),
      {
        connectorId: Number(row.id),
        teamId: Number(row.team_id),
        botUserId:
          typeof row.bot_user_id === 'string' && row.bot_user_id !== '' ? row.bot_user_id : undefined,
        secretsSealed: row.secrets_sealed ?? null,
      },
    ]),
  );
}

export interface NewChatappEvent {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly teamId: number;
}

/**
 * Records Slack events the first time they arrive, many in one statement. Answers, per event,
 * whether this call recorded it: false for one recorded before (a retry or a re-delivery of the
 * same `event_id`) and for a repeat within `events`. The primary key decides, even across
 * processes racing on the same delivery.
 */
export async function recordChatappEvents(
  db: SqlExecutor,
  events: readonly NewChatappEvent[],
): Promise<boolean[]> {
  const firstIndex = new Map<string, number>();
  events.forEach((event, index) => {
    const key = JSON.stringify([event.workspaceId, event.eventId]);
    if (!firstIndex.has(key)) firstIndex.set(key, index);
  });
  const unique = [...firstIndex.values()];
  const records = unique.map((index) => {
    const event = events[index] as NewChatappEvent;
    return { workspace_id: event.workspaceId, event_id: event.eventId, team_id: event.teamId };
  });
  // Rows are matched to inputs by position inside SQL, not by comparing returned text in JS.
  const { rows } = await db.executeSql<{ position: string | number }>(
    `WITH input AS (
       SELECT * FROM ROWS FROM (
         jsonb_to_recordset($1::jsonb) AS (workspace_id text, event_id text, team_id integer)
       ) WITH ORDINALITY AS input(workspace_id, event_id, team_id, position)
     ), inserted AS (
       INSERT INTO chatapp_events (workspace_id, event_id, team_id)
       SELECT workspace_id, event_id, team_id FROM input ORDER BY position
       ON CONFLICT (workspace_id, event_id) DO NOTHING
       RETURNING workspace_id, event_id
     )
     SELECT input.position FROM inserted JOIN input USING (workspace_id, event_id)`,
    [JSON.stringify(records)],
  );
  const recorded = new Set(rows.map((row) => unique[Number(row.position) - 1]));
  return events.map((_event, index) => recorded.has(index));
}

export async function chatappEventStatus(
  db: SqlExecutor,
  workspaceId: string,
  eventId: string,
): Promise<{ status: ChatappEventStatus; replyTs: string | null } | undefined> {
  const { rows } = await db.executeSql<{ status: ChatappEventStatus; reply_ts: string | null }>(
    'SELECT status, reply_ts FROM chatapp_events WHERE workspace_id = $1 AND event_id = $2',
    [workspaceId, eventId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { status: row.status, replyTs: row.reply_ts ?? null };
}

/** Marks an event done: its reply posted (`answered`, `refused`) or abandoned (`failed`). */
export async function finishChatappEvent(
  db: SqlExecutor,
  workspaceId: string,
  eventId: string,
  status: Exclude<ChatappEventStatus, 'queued'>,
  replyTs: string | null,
): Promise<void> {
  await db.executeSql(
    `UPDATE chatapp_events SET status = $3, reply_ts = $4, updated_at = now()
      WHERE workspace_id = $1 AND event_id = $2`,
    [workspaceId, eventId, status, replyTs],
  );
}

/**
 * Forgets settled events received before `cutoff`, at most `limit` a call (a short transaction
 * on a big table); answers how many went. Events still `queued` are kept: their jobs decide.
 */
export async function deleteSettledChatappEvents(
  db: SqlExecutor,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const { rows } = await db.executeSql<{ '?column?': number }>(
    `WITH old AS (
       SELECT workspace_id, event_id FROM chatapp_events
        WHERE received_at < $1 AND status <> 'queued' ORDER BY received_at LIMIT $2
     )
     DELETE FROM chatapp_events AS e USING old
      WHERE e.workspace_id = old.workspace_id AND e.event_id = old.event_id
     RETURNING 1`,
    [cutoff.toISOString(), limit],
  );
  return rows.length;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { finishChatappEvent, recordChatappEvents } from '../db/repositories/chatapp-events.js';
import { CHATAPP_EVENT_RETENTION_DAYS, forgetOldChatappEvents } from './forget-chatapp-events.js';

describe('forgetOldChatappEvents', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(async () => {
    await testApp.close();
  });

  it('forgets settled events older than the retention, and keeps recent and unsettled ones', async () => {
    const { sql } = testApp.runtime.database;
    const { teamId } = await registerUser(testApp.app);
    const event = (eventId: string) => ({ workspaceId: 'TFORGET', eventId, teamId });
    await recordChatappEvents(sql, ['EvOldDone', 'EvOldQueued', 'EvNewDone'].map(event));
    await finishChatappEvent(sql, 'TFORGET', 'EvOldDone', 'answered', '1.2');
    await finishChatappEvent(sql, 'TFORGET', 'EvNewDone', 'refused', '1.3');
    await sql.executeSql(
      `UPDATE chatapp_events SET received_at = now() - interval '8 days'
        WHERE workspace_id = 'TFORGET' AND event_id LIKE 'EvOld%'`,
    );
    expect(CHATAPP_EVENT_RETENTION_DAYS).toBeLessThan(8);

    expect(await forgetOldChatappEvents({ data: testApp.runtime.deps.data, now: () => new Date() })).toBe(1);
    const { rows } = await sql.executeSql(
      `SELECT event_id FROM chatapp_events WHERE workspace_id = 'TFORGET' ORDER BY event_id`,
    );
    expect(rows.map((row) => row.event_id)).toEqual(['EvNewDone', 'EvOldQueued']);
    // A week later the recent one goes too.
    const later = new Date(Date.now() + 8 * 86_400_000);
    expect(await forgetOldChatappEvents({ data: testApp.runtime.deps.data, now: () => later })).toBe(1);
  });
});

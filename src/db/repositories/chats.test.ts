import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { testDatabaseKind } from '../../../test/helpers/test-database.js';
import type { Database } from '../client.js';
import type { StoredChatMessage } from '../schema.js';
import { appendChatMessages, rateChatMessage, upsertChats } from './chats.js';

const message = (role: string, content: string): StoredChatMessage => ({
  role,
  content,
  timestamp: null,
  chat_id: null,
});

const TURN: [StoredChatMessage, StoredChatMessage] = [
  message('user', 'How long is the notice period?'),
  message('assistant', 'One month [1].'),
];
const NEXT_TURN = [message('user', 'And during probation?'), message('assistant', 'One week [1].')];

describe('chat ratings in the chats repository', () => {
  let testApp: TestApp;
  let db: Database;
  let userId: number;
  beforeAll(async () => {
    testApp = await startTestApp();
    db = testApp.runtime.database.db;
    userId = (await registerUser(testApp.app)).userId;
  });
  afterAll(() => testApp.close());

  async function stored(chatId: string): Promise<StoredChatMessage[]> {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT messages FROM chats WHERE user_id = $1 AND chat_id = $2',
      [userId, chatId],
    );
    return (rows[0]?.messages ?? []) as StoredChatMessage[];
  }

  const save = (chatId: string, messages: StoredChatMessage[]) =>
    upsertChats(db, [{ userId, chatId, title: 'Notice', messages }]);
  const append = (chatId: string, messages: StoredChatMessage[]) =>
    appendChatMessages(db, { userId, chatId, title: 'Notice', messages, maxMessages: 100 });
  const rate = (chatId: string, messageIndex: number, rating: 'up' | 'down' | null) =>
    rateChatMessage(db, { userId, chatId, messageIndex, rating });

  it('sets and clears the feedback of that one message, and says why it could not', async () => {
    await save('outcomes', TURN);
    expect(await rate('outcomes', 1, 'down')).toEqual({ outcome: 'rated' });
    expect(await stored('outcomes')).toEqual([TURN[0], { ...TURN[1], feedback: 'down' }]);
    expect(await rate('outcomes', 1, null)).toEqual({ outcome: 'rated' });
    expect(await stored('outcomes')).toEqual(TURN);
    expect(await rate('outcomes', 0, 'up')).toEqual({ outcome: 'not_an_answer', role: 'user' });
    expect(await rate('outcomes', 2, 'up')).toEqual({ outcome: 'no_such_message', messageCount: 2 });
    expect(await rate('elsewhere', 1, 'up')).toEqual({ outcome: 'chat_not_found' });
    const other = await registerUser(testApp.app);
    expect(
      await rateChatMessage(db, { userId: other.userId, chatId: 'outcomes', messageIndex: 1, rating: 'up' }),
    ).toEqual({
      outcome: 'chat_not_found',
    });
    expect(await stored('outcomes')).toEqual(TURN);
  });

  it('says where an appended answer is: the last message the append left', async () => {
    expect((await append('positions', TURN)).messageCount).toBe(2);
    expect((await append('positions', NEXT_TURN)).messageCount).toBe(4);
    const bounded = await appendChatMessages(db, {
      userId,
      chatId: 'positions',
      title: 'Notice',
      messages: TURN,
      maxMessages: 3,
    });
    expect(bounded.messageCount).toBe(3);
    expect((await stored('positions')).at(bounded.messageCount - 1)).toEqual(TURN[1]);
  });

  it('keeps a rating through a save right after it that leaves the answer in place, and answers it', async () => {
    await save('resaved', TURN);
    await rate('resaved', 1, 'up');
    const [result] = await save('resaved', [...TURN, ...NEXT_TURN]);
    expect([...(result?.feedback ?? [])]).toEqual([[1, 'up']]);
    expect(await stored('resaved')).toEqual([TURN[0], { ...TURN[1], feedback: 'up' }, ...NEXT_TURN]);
    // A changed answer, or one moved to another position, is another answer: its rating goes.
    await save('resaved', [TURN[0], message('assistant', 'Two months.'), ...NEXT_TURN]);
    expect((await stored('resaved')).some((item) => item.feedback !== undefined)).toBe(false);
    await save('resaved', [...TURN, ...NEXT_TURN]);
    await rate('resaved', 1, 'down');
    await save('resaved', [message('user', 'Hi'), ...TURN]);
    expect((await stored('resaved')).some((item) => item.feedback !== undefined)).toBe(false);
  });

  it('loses no rating to saves and appends of the same chat arriving with it', async () => {
    for (let round = 0; round < 15; round += 1) {
      const chatId = `race-${round}`;
      await save(chatId, TURN);
      const [rated] = await Promise.all([
        rate(chatId, 1, 'up'),
        save(chatId, [...TURN, ...NEXT_TURN]),
        append(chatId, NEXT_TURN),
        append(chatId, NEXT_TURN),
      ]);
      expect(rated).toEqual({ outcome: 'rated' });
      const messages = await stored(chatId);
      // Whichever order the statements took, the rated answer is where it was, rated.
      expect(messages[1]).toEqual({ ...TURN[1], feedback: 'up' });
      expect(messages.filter((item) => item.feedback !== undefined)).toHaveLength(1);
    }
  });

  it.runIf(testDatabaseKind() === 'postgres')(
    'orders a rating and a save waiting on the same chat by its row lock, and keeps the rating either way',
    async () => {
      await save('locked', TURN);
      let settled = 0;
      let rating: Promise<unknown> | undefined;
      let saving: Promise<unknown> | undefined;
      await db.transaction(async (tx) => {
        await tx.execute(
          sql`SELECT 1 FROM chats WHERE user_id = ${userId} AND chat_id = 'locked' FOR UPDATE`,
        );
        // Both run on other connections of the pool and wait for this transaction's lock.
        rating = rate('locked', 1, 'up').then(() => (settled += 1));
        saving = save('locked', [...TURN, ...NEXT_TURN]).then(() => (settled += 1));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(settled).toBe(0);
      });
      await Promise.all([rating, saving]);
      expect(await stored('locked')).toEqual([TURN[0], { ...TURN[1], feedback: 'up' }, ...NEXT_TURN]);
    },
  );
});

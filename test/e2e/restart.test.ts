import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import {
  registerOverHttp,
  runServiceExpectingFailure,
  startServiceProcess,
} from '../helpers/service-process.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database.js';

// Each test starts one or two service processes (tsx compiling, PGlite's start): 30 s is too
// little on a loaded two-core machine.
describe('the service process', { timeout: 900_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'restart-'));
    database = await createTestDatabase();
    env =
      database.location.kind === 'postgres'
        ? { DATABASE_URL: database.location.url, ENCRYPTION_KEY: 'ab'.repeat(32), LOG_LEVEL: 'warn' }
        : { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps chats across a graceful stop (exit 0) and a start on the same data', async () => {
    const first = await startServiceProcess(env);
    const token = await registerOverHttp(first.url, 'restart');
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    for (let index = 0; index < 20; index++) {
      const saved = await fetch(`${first.url}/v1/chats/chat-${index}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          chat_id: `chat-${index}`,
          messages: [{ role: 'user', content: `question ${index}` }],
        }),
      });
      expect(saved.status).toBe(201);
    }
    // A request still in flight when SIGTERM arrives (its body half sent) is finished, not dropped.
    const body = JSON.stringify({ chat_id: 'chat-last', messages: [{ role: 'user', content: 'last' }] });
    const inFlight = new Promise<number>((resolve, reject) => {
      const request = http.request(`${first.url}/v1/chats/chat-last`, {
        method: 'PUT',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.write(body.slice(0, 10));
      request.on('socket', (socket) =>
        socket.on('connect', () => setTimeout(() => request.end(body.slice(10)), 300)),
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exitCode = first.stop('SIGTERM');
    expect(await inFlight).toBe(201);
    expect(await exitCode).toBe(0);
    if (testDatabaseKind() === 'embedded') {
      expect(statSync(path.join(dataDir, 'encryption.key')).mode & 0o777).toBe(0o600);
    }

    const second = await startServiceProcess(env);
    try {
      const list = await fetch(`${second.url}/v1/chats/?limit=100`, { headers });
      expect(list.status).toBe(200);
      const chats = (await list.json()) as { chat_id: string }[];
      expect(chats.map((chat) => chat.chat_id).sort()).toEqual(
        [...Array.from({ length: 20 }, (_, index) => `chat-${index}`), 'chat-last'].sort(),
      );
      const one = await fetch(`${second.url}/v1/chats/chat-7`, { headers });
      expect(((await one.json()) as { messages: { content: string }[] }).messages[0]?.content).toBe(
        'question 7',
      );
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
  });

  it('refuses a second process on the same embedded data directory', async () => {
    if (testDatabaseKind() !== 'embedded') return;
    const first = await startServiceProcess(env);
    try {
      const second = await runServiceExpectingFailure({ ...env, PORT: '0' });
      expect(second.code).not.toBe(0);
      expect(second.output).toContain('in use by process');
    } finally {
      await first.stop();
    }
  });

  it('serves from several API processes on PostgreSQL and stops them all cleanly', async () => {
    if (testDatabaseKind() !== 'postgres') {
      const refused = await runServiceExpectingFailure({ ...env, API_PROCESSES: '2' });
      expect(refused.code).toBe(2);
      expect(refused.output).toContain('API_PROCESSES above 1 needs DATABASE_URL');
      return;
    }
    const service = await startServiceProcess({ ...env, API_PROCESSES: '3', LOG_LEVEL: 'info' });
    const startedPids = () =>
      new Set(
        service
          .output()
          .split('\n')
          .filter((line) => line.includes('"service started"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      );
    try {
      // Ready means one process answers; wait for all three.
      for (let waited = 0; startedPids().size < 3 && waited < HANG_BOUND_MS; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(startedPids().size).toBe(3);
      const token = await registerOverHttp(service.url, 'multi');
      const headers = {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        connection: 'close',
      };
      const saves = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          fetch(`${service.url}/v1/chats/multi-${index}`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({
              chat_id: `multi-${index}`,
              messages: [{ role: 'user', content: `m${index}` }],
            }),
          }),
        ),
      );
      expect(saves.map((save) => save.status)).toEqual(Array(30).fill(201));
      const list = await fetch(`${service.url}/v1/chats/?limit=100`, { headers });
      expect(((await list.json()) as unknown[]).length).toBe(30);
    } finally {
      const code = await service.stop('SIGTERM');
      expect(code, service.output().slice(-3000)).toBe(0);
    }
  });

  it('reports every invalid setting at once and exits non-zero', async () => {
    const result = await runServiceExpectingFailure({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://nope',
      LOG_LEVEL: 'loud',
      OAUTH_PROXY_ALLOW_PRIVATE_NETWORK: 'maybe',
    });
    expect(result.code).toBe(2);
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
      'OAUTH_PROXY_ALLOW_PRIVATE_NETWORK',
      'ENCRYPTION_KEY',
    ]) {
      expect(result.output).toContain(name);
    }
  });
});

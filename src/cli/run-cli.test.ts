import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The real service is in test/e2e/cli.test.ts; this server plays one that goes wrong mid-run,
// which the real one cannot be made to do on cue.
let server: Server | undefined;
async function serviceAnsweringUploadsWith(status: number, body: unknown): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    const ok = request.method === 'GET' && request.url === '/v1/users/me';
    response.writeHead(ok ? 200 : status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { id: 1 } : body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: {
      write: (text) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text) => {
        stderr += text;
      },
    },
    env: {},
    stderrIsTty: false,
    pollIntervalMs: 20,
    retryBaseMs: 1,
  });
  return { code, stdout, stderr };
}

let folder: string;
let corpus: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'run-cli-'));
  corpus = path.join(folder, 'corpus.jsonl');
  await writeFile(
    corpus,
    Array.from({ length: 5 }, (_, index) => JSON.stringify({ _id: `${index}`, text: `doc ${index}` })).join(
      '\n',
    ),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});
afterEach(() => {
  server?.close();
  server = undefined;
});

describe('runCli when the service goes wrong after the start', () => {
  it('stops at a token refused mid-run: exit 2, with the summary so far', async () => {
    const url = await serviceAnsweringUploadsWith(401, { detail: 'Not authenticated' });
    const result = await run(['ingest', corpus, '--url', url, '--token', 'revoked', '--batch-size', '2']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /^Stopped early: the service refused the token \(401\): Not authenticated$/m,
    );
    expect(result.stdout).toMatch(/^Indexed +0$/m);
  });

  it('records the documents of a request that keeps failing with 5xx as failed, and goes on: exit 1', async () => {
    const url = await serviceAnsweringUploadsWith(500, { detail: 'Internal Server Error' });
    const result = await run([
      'ingest',
      corpus,
      '--url',
      url,
      '--token',
      't',
      '--batch-size',
      '2',
      '--retries',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ failed: 5, failed_reasons: { server_error: 5 }, aborted: null });
    expect(summary.failures[0]).toMatchObject({
      id: '0',
      line: 1,
      message: 'HTTP 500: Internal Server Error',
    });
  });

  it('prints the usage for --help, and refuses an unknown command', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--batch-size N');
    const unknown = await run(['upload', corpus]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "upload"/);
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestSummary } from '../../src/cli/ingest.js';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import { type CliRun, runCliCaptured } from '../helpers/run-cli.js';
import { freePort } from '../helpers/service-process.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../helpers/test-app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs the real command in this process, with its output captured. */
function run(argv: string[], options: { tty?: boolean; env?: Record<string, string> } = {}): Promise<CliRun> {
  return runCliCaptured(argv, {
    env: options.env ?? {},
    stderrIsTty: options.tty ?? false,
    stderrColumns: 100,
  });
}

function summaryOf(result: CliRun): IngestSummary {
  return JSON.parse(result.stdout) as IngestSummary;
}

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'cli-test-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** A JSONL file of BEIR-shaped lines (or any lines given as text). */
async function jsonlFile(name: string, lines: (object | string)[]): Promise<string> {
  const file = path.join(workDir, name);
  await writeFile(
    file,
    `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
  );
  return file;
}

// Indexing runs beside the CLI: on a busy machine that takes minutes, which only a hang should exceed.
describe('knowledge-answers ingest, against the real service', { timeout: 900_000 }, () => {
  let testApp: TestApp;
  let url: string;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    url = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await testApp.close();
  });

  async function documentsOf(token: string) {
    const response = await testApp.app.inject({ url: '/v1/documents?limit=500', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    return (response.json() as { documents: { external_id: string; title: string; status: string }[] })
      .documents;
  }

  it('uploads a BEIR corpus: good lines indexed, bad lines failed with their line numbers, exit 1', async () => {
    const { token } = await registerUser(testApp.app);
    const file = await jsonlFile('corpus.jsonl', [
      {
        _id: '4983',
        title: 'White matter',
        text: 'Diffusion tensor imaging of newborn brains.',
        metadata: {},
      },
      { _id: '5836', title: 'Vitamin D', text: 'Vitamin D levels and bone density in adults.', metadata: {} },
      '{"_id": "broken", "title": "Cut off", "te',
      '',
      { _id: '7912', title: '', text: 'A document whose title is empty takes its id.' },
      { _id: '8000', title: 'No text' },
      { external_id: 'upload-shape', title: 'Upload shape', text: 'The upload shape is read too.' },
      { _id: '4983', title: 'Again', text: 'The same id twice in one file.' },
    ]);
    const result = await run(['ingest', file, '--url', url, '--token', token, '--json'], { tty: true });
    expect(result.code, result.stderr).toBe(1);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({
      indexed: 4,
      skipped: 0,
      failed: 3,
      queued: 0,
      failed_reasons: { invalid_line: 3 },
      aborted: null,
    });
    expect(summary.failures.map((failure) => [failure.line, failure.reason])).toEqual([
      [3, 'invalid_line'],
      [6, 'invalid_line'],
      [8, 'invalid_line'],
    ]);
    expect(summary.failures[0]?.message).toMatch(/not JSON/);
    expect(summary.failures[1]?.message).toMatch(/"text"/);
    expect(summary.failures[2]?.message).toBe('external_id "4983" is also on line 1');
    const documents = await documentsOf(token);
    expect(documents.map((document) => document.external_id).sort()).toEqual([
      '4983',
      '5836',
      '7912',
      'upload-shape',
    ]);
    expect(documents.find((document) => document.external_id === '7912')?.title).toBe('7912');
    expect(documents.every((document) => document.status === 'indexed')).toBe(true);
    // A terminal gets one line redrawn in place, cleared before the summary.
    expect(result.stderr).toContain('\r');
    expect(result.stderr).toMatch(/\[[#-]{24}\] {2}\d\/7 /);
    expect(result.stderr.endsWith('\r\x1b[K')).toBe(true);
    expect(result.stderr + result.stdout).not.toContain(token);
  });

  it('uploads a folder under relative-path ids, skips what it cannot read, and skips it all when re-run', async () => {
    const { token } = await registerUser(testApp.app);
    const folder = path.join(workDir, 'handbook');
    await mkdir(path.join(folder, 'policies', 'travel'), { recursive: true });
    await mkdir(path.join(folder, '.git'), { recursive: true });
    await writeFile(path.join(folder, 'welcome.md'), '# Welcome\n\nStart here on your first day.');
    await writeFile(path.join(folder, 'notes.txt'), 'Lunch is served at noon in the atrium.');
    await writeFile(
      path.join(folder, 'policies', 'holidays.html'),
      '<html><body><h1>Holidays</h1><p>Everyone gets 25 days.</p></body></html>',
    );
    await writeFile(path.join(folder, 'policies', 'travel', 'trains.md'), '# Trains\n\nBook second class.');
    await writeFile(path.join(folder, 'policies', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await writeFile(path.join(folder, '.draft.md'), '# Draft\n\nNot ready.');
    await writeFile(path.join(folder, '.git', 'HEAD.md'), 'ref: refs/heads/main');
    await writeFile(path.join(workDir, 'outside.md'), '# Outside\n\nNot part of the handbook.');
    await symlink(path.join(workDir, 'outside.md'), path.join(folder, 'outside-link.md'));

    const first = await run(['ingest', folder, '--url', url, '--token', token, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const summary = summaryOf(first);
    expect(summary).toMatchObject({
      source: folder,
      indexed: 4,
      skipped: 2,
      failed: 0,
      queued: 0,
      skipped_reasons: { unsupported_type: 1, symlink: 1 },
      failed_reasons: {},
      failures: [],
      aborted: null,
    });
    expect(summary.skipped_examples.map((example) => [example.name, example.reason])).toEqual([
      ['outside-link.md', 'symlink'],
      ['policies/logo.png', 'unsupported_type'],
    ]);
    // The two top-level files share one request (their names are their ids); nested files go alone.
    expect(summary.jobs).toHaveLength(3);
    expect(summary.elapsed_seconds).toBeGreaterThan(0);
    const documents = await documentsOf(token);
    expect(documents.map((document) => document.external_id).sort()).toEqual([
      'notes.txt',
      'policies/holidays.html',
      'policies/travel/trains.md',
      'welcome.md',
    ]);

    const again = await run(['ingest', folder, '--url', url, '--token', token]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Indexed +0$/m);
    expect(again.stdout).toMatch(
      /^Skipped +6 {2}unchanged 4, (unsupported_type 1, symlink 1|symlink 1, unsupported_type 1)$/m,
    );
    expect(again.stdout).toMatch(/^Failed +0$/m);
    expect(again.stdout).toContain('policies/logo.png: unsupported_type');
    // Not a terminal: no redrawn bar.
    expect(again.stderr).not.toContain('\r');
  });

  it('puts --external-id-prefix in front of every id, and returns at once with --no-wait', async () => {
    const { token } = await registerUser(testApp.app);
    const file = await jsonlFile('prefixed.jsonl', [
      { _id: '1', title: 'One', text: 'The first document.' },
      { _id: '2', title: 'Two', text: 'The second document.' },
    ]);
    const result = await run([
      'ingest',
      file,
      '--url',
      url,
      '--token',
      token,
      '--external-id-prefix',
      'scifact:',
      '--no-wait',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ indexed: 0, failed: 0, queued: 2 });
    // The worker may not have taken the job up yet: an empty list is not "all indexed".
    const allIndexed = async () => {
      const documents = await documentsOf(token);
      return documents.length === 2 && documents.every((document) => document.status === 'indexed');
    };
    const deadline = Date.now() + HANG_BOUND_MS;
    while (!(await allIndexed())) {
      if (Date.now() > deadline) throw new Error('the queued documents were never indexed');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await documentsOf(token)).map((document) => document.external_id).sort()).toEqual([
      'scifact:1',
      'scifact:2',
    ]);
  });

  it('refuses a bad token with exit code 2 and a clear message, before uploading anything', async () => {
    const file = await jsonlFile('unused.jsonl', [{ _id: '1', title: 'One', text: 'Never sent.' }]);
    const result = await run(['ingest', file, '--url', url], {
      env: { KNOWLEDGE_TOKEN: 'not-a-real-token' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refused the token \(401 Not authenticated\)/);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('not-a-real-token');
  });

  it('answers exit code 2 for bad arguments and an unreachable service', async () => {
    const file = await jsonlFile('unused-too.jsonl', [{ _id: '1', title: 'One', text: 'Never sent.' }]);
    const noToken = await run(['ingest', file, '--url', url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no token: pass --token or set KNOWLEDGE_TOKEN/);
    const badNumber = await run(['ingest', file, '--token', 't', '--batch-size', 'lots']);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--batch-size must be a whole number/);
    const unknownOption = await run(['ingest', file, '--token', 't', '--fast']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/--fast/);
    const credentials = await run(['ingest', file, '--token', 't', '--url', 'http://ann:pw@127.0.0.1:1']);
    expect(credentials.code).toBe(2);
    expect(credentials.stderr).toMatch(/must not carry a user name or password/);
    expect(credentials.stderr).not.toContain('pw');
    const missing = await run(['ingest', path.join(workDir, 'nowhere'), '--token', 't']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file or folder/);
    const closedPort = await freePort();
    const unreachable = await run([
      'ingest',
      file,
      '--url',
      `http://127.0.0.1:${closedPort}`,
      '--token',
      'secret-token-value',
      '--retries',
      '1',
    ]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/cannot reach the service at http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED/);
    expect(unreachable.stderr).not.toContain('secret-token-value');
  });

  it('runs as a program: the entry with its shebang, through tsx, reading KNOWLEDGE_URL and KNOWLEDGE_TOKEN', async () => {
    const entry = path.join(ROOT, 'src/cli.ts');
    expect((await readFile(entry, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
    const { token } = await registerUser(testApp.app);
    const file = path.join(workDir, 'single.md');
    await writeFile(file, '# Single\n\nOne file on its own.');
    const spawnCli = async (args: string[], env: Record<string, string>) => {
      const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += String(chunk);
      });
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stdout, stderr };
    };

    const uploaded = await spawnCli(['ingest', file], { KNOWLEDGE_URL: url, KNOWLEDGE_TOKEN: token });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(uploaded.stdout).toMatch(/^Indexed +1$/m);
    expect(uploaded.stdout).toMatch(/^Failed +0$/m);
    expect((await documentsOf(token)).map((document) => document.external_id)).toEqual(['single.md']);

    const help = await spawnCli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: knowledge-answers ingest <folder \| file\.jsonl \| file>/);
    const usage = await spawnCli(['ingest'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/ingest needs a folder/);
  });
});

describe('knowledge-answers ingest, against a service with small upload limits', () => {
  let testApp: TestApp;
  let url: string;

  beforeAll(async () => {
    testApp = await startTestApp({
      worker: true,
      env: { UPLOAD_MAX_DOCUMENTS: '3', UPLOAD_MAX_BYTES: '4096' },
    });
    url = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await testApp.close();
  });

  /** How many documents each of the team's upload jobs was given. */
  async function jobSizes(teamId: number): Promise<number[]> {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT count(*)::int AS items FROM index_job_items i JOIN index_jobs j ON j.id = i.job_id
       WHERE j.team_id = $1 GROUP BY j.id, j.created_at ORDER BY j.created_at`,
      [teamId],
    );
    return rows.map((row) => Number(row.items));
  }

  it('halves a batch the service finds too long, and keeps to the size it learnt', async () => {
    const { token, teamId } = await registerUser(testApp.app);
    const file = await jsonlFile(
      'fourteen.jsonl',
      Array.from({ length: 14 }, (_, index) => ({
        _id: `doc-${index + 1}`,
        title: `Document ${index + 1}`,
        text: `Short text number ${index + 1}.`,
      })),
    );
    const result = await run([
      'ingest',
      file,
      '--url',
      url,
      '--token',
      token,
      '--batch-size',
      '8',
      '--concurrency',
      '1',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ indexed: 14, failed: 0, skipped: 0 });
    // 8 refused → 3 + 3 + 2; then batches of 3 from the start.
    expect(await jobSizes(teamId)).toEqual([3, 3, 2, 3, 3]);
  });

  it('splits a batch the service finds too large (413), and skips a document or file that is too large alone', async () => {
    const { token } = await registerUser(testApp.app);
    const file = await jsonlFile('heavy.jsonl', [
      { _id: 'a', title: 'A', text: 'a'.repeat(1500) },
      { _id: 'b', title: 'B', text: 'b'.repeat(1500) },
      { _id: 'c', title: 'C', text: 'c'.repeat(1500) },
      { _id: 'huge', title: 'Huge', text: 'h'.repeat(6000) },
    ]);
    const documents = await run(['ingest', file, '--url', url, '--token', token, '--json']);
    expect(documents.code, documents.stderr).toBe(0);
    const summary = summaryOf(documents);
    expect(summary).toMatchObject({ indexed: 3, skipped: 1, failed: 0, skipped_reasons: { too_large: 1 } });
    expect(summary.skipped_examples[0]).toMatchObject({ id: 'huge', line: 4, reason: 'too_large' });

    const folder = path.join(workDir, 'heavy-files');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'small.txt'), 'A small file.');
    await writeFile(path.join(folder, 'large.txt'), 'x'.repeat(10_000));
    const files = await run(['ingest', folder, '--url', url, '--token', token, '--json']);
    expect(files.code, files.stderr).toBe(0);
    expect(summaryOf(files)).toMatchObject({ indexed: 1, skipped: 1, skipped_reasons: { too_large: 1 } });
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { type FormPart, multipart } from './multipart-body.js';
import { registerOverHttp, type ServiceProcess, startServiceProcess } from './service-process.js';
import { createTestDatabase } from './test-database.js';

/** A field of `/proc/<pid>/status` (VmRSS, VmHWM), in bytes. */
export function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

export interface JobView {
  readonly result_ready: boolean;
  readonly status: string;
  readonly files: readonly { id: string; status: string; reason: string | null; message: string | null }[];
}

/** Uploads files to a running service as a browser does (multipart), and waits until their job is done. */
export async function uploadFilesOverHttp(
  service: ServiceProcess,
  token: string,
  files: readonly { name: string; type: string; content: Uint8Array }[],
): Promise<JobView> {
  const { body, contentType } = multipart(
    files.map(
      (file): FormPart => ({ name: 'file', fileName: file.name, type: file.type, content: file.content }),
    ),
  );
  const response = await fetch(`${service.url}/v1/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  expect(response.status, await response.clone().text()).toBe(202);
  const { result_id: id } = (await response.json()) as { result_id: string };
  // Until the job says it is done, however busy the machine: the test's own timeout guards a hang.
  for (;;) {
    const view = (await (
      await fetch(`${service.url}/v1/documents/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as JobView;
    if (view.result_ready) return view;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A service process for big uploads, on the test's database, with one signed-up member's token. */
export interface UploadService {
  readonly service: ServiceProcess;
  readonly token: string;
  stop(): Promise<void>;
}

/**
 * Starts the service as users run it (PGlite in a folder, or the test's PostgreSQL) with one parse
 * thread. Big files are stopped by what they take (memory, size), never by the clock: parsing an
 * honest 19 MiB document takes minutes on a busy machine, past the default minute.
 */
export async function startUploadService(name: string): Promise<UploadService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  const database = await createTestDatabase();
  const common = { LOG_LEVEL: 'warn', PARSE_THREADS: '1', INDEX_PARSE_TIMEOUT_MS: '900000' };
  const service = await startServiceProcess(
    database.location.kind === 'postgres'
      ? { ...common, DATABASE_URL: database.location.url, ENCRYPTION_KEY: 'ef'.repeat(32) }
      : { ...common, DATA_DIR: dataDir },
  );
  const token = await registerOverHttp(service.url, name);
  return {
    service,
    token,
    async stop() {
      await service.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

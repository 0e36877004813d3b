import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/http';
import type { QueuedJob } from '../api/types';
import {
  byteLimitOf,
  DEFAULT_UPLOAD_LIMITS,
  jobEntriesFor,
  limitsAfterRefusal,
  planRequests,
  type RequestSender,
  refusedFileOf,
  type SizedFile,
  sendInRequests,
  type UploadLimits,
} from './upload-requests';

const KIB = 1024;
const MIB = 1024 * KIB;

const file = (name: string, size: number): SizedFile => ({ name, size });
const files = (count: number, size = 2 * KIB) =>
  Array.from({ length: count }, (_, index) => file(`readme-${index + 1}.md`, size));

/**
 * A fake POST /v1/documents that refuses as the service does (documents.route.ts): 413 past its
 * file count or, once the files counted so far pass its byte limit, naming the limit; 415 for a
 * file of a type it does not read, named first in the detail.
 */
function fakeService(limit: { bytes: number; files: number }) {
  const requests: string[][] = [];
  let jobs = 0;
  const send = async (group: readonly SizedFile[]): Promise<QueuedJob> => {
    requests.push(group.map((entry) => entry.name));
    if (group.length > limit.files) throw new ApiError(413, `At most ${limit.files} files per request`);
    let total = 0;
    for (const [index, entry] of group.entries()) {
      if (entry.name.endsWith('.exe')) {
        throw new ApiError(
          415,
          `${entry.name} (application/x-msdownload) is not a document type this service reads: upload PDF, DOCX, Markdown, plain text, HTML, CSV, TSV and JSON`,
        );
      }
      total += entry.size;
      if (total > limit.bytes) {
        const size = `${limit.bytes / KIB} KiB`;
        throw new ApiError(
          413,
          index === 0
            ? `The file is larger than the ${size} limit (UPLOAD_MAX_BYTES)`
            : `The files are larger than the ${size} limit (UPLOAD_MAX_BYTES) together: send fewer or smaller files per request`,
        );
      }
    }
    jobs += 1;
    return { result_id: `job-${jobs}`, result_ready: false };
  };
  return { requests, send };
}

/** Sends `chosen` to `service`, recording what each file ended as. */
async function sendBatch(
  chosen: readonly SizedFile[],
  service: ReturnType<typeof fakeService>,
  limits: { current: UploadLimits } = { current: DEFAULT_UPLOAD_LIMITS },
) {
  const queued: { job: string; files: string[] }[] = [];
  const refused = new Map<string, string>();
  const sender: RequestSender<SizedFile> = {
    limits,
    send: (group) => service.send(group),
    turn: (task) => task(),
  };
  await sendInRequests(chosen, sender, {
    sending: () => {},
    progress: () => {},
    queued: (group, job) => queued.push({ job: job.result_id, files: group.map((entry) => entry.name) }),
    refused: (group, words) => {
      for (const entry of group) refused.set(entry.name, words);
    },
  });
  return { queued, refused, limits };
}

describe('planRequests', () => {
  it('sends files chosen together in one request while they fit', () => {
    const chosen = files(12);
    expect(planRequests(chosen, DEFAULT_UPLOAD_LIMITS)).toEqual({ requests: [chosen], tooLarge: [] });
  });

  it('splits past the file count into as few requests as it allows, each in the order chosen', () => {
    const chosen = files(131);
    const { requests } = planRequests(chosen, DEFAULT_UPLOAD_LIMITS);
    expect(requests.map((request) => request.length)).toEqual([100, 31]);
    expect(
      requests
        .flat()
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(chosen.map((entry) => entry.name).sort());
    for (const request of requests) {
      const positions = request.map((entry) => chosen.indexOf(entry));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it('packs by bytes: no request over the limit, and no more requests than the sizes need', () => {
    const limits: UploadLimits = { files: 20, bytes: 10 * MIB, bytesStated: true };
    const chosen = [6, 3, 6, 4, 1, 4, 2].map((mib, index) => file(`f${index}.pdf`, mib * MIB));
    const { requests } = planRequests(chosen, limits);
    // 26 MiB under 10 MiB a request: three requests at least, and three it is.
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.reduce((sum, entry) => sum + entry.size, 0)).toBeLessThanOrEqual(limits.bytes);
    }
  });

  it('refuses a file over a stated limit, but sends one over the assumed default alone', () => {
    const big = file('big.pdf', 40 * MIB);
    const small = file('small.md', KIB);
    expect(planRequests([big, small], DEFAULT_UPLOAD_LIMITS)).toEqual({
      requests: [[big], [small]],
      tooLarge: [],
    });
    const stated: UploadLimits = { files: 20, bytes: 32 * MIB, bytesStated: true };
    expect(planRequests([big, small], stated)).toEqual({ requests: [[small]], tooLarge: [big] });
  });
});

describe("a 413's detail", () => {
  it('teaches the byte limit it names', () => {
    expect(byteLimitOf('The file is larger than the 32 MiB limit (UPLOAD_MAX_BYTES)')).toBe(32 * MIB);
    expect(byteLimitOf('The files are larger than the 256 KiB limit (UPLOAD_MAX_BYTES) together: …')).toBe(
      256 * KIB,
    );
    expect(byteLimitOf('The request body is larger than the 1,500 bytes limit')).toBe(1500);
    expect(byteLimitOf('At most 100 files per request')).toBeUndefined();
    expect(byteLimitOf('Payload Too Large')).toBeUndefined();
  });

  it('teaches the file count it names, and keeps what it does not name', () => {
    const limits = limitsAfterRefusal(DEFAULT_UPLOAD_LIMITS, 'At most 8 files per request');
    expect(limits).toEqual({ ...DEFAULT_UPLOAD_LIMITS, files: 8 });
    expect(limitsAfterRefusal(limits, 'The file is larger than the 2 MiB limit (UPLOAD_MAX_BYTES)')).toEqual({
      files: 8,
      bytes: 2 * MIB,
      bytesStated: true,
    });
  });
});

describe('refusedFileOf', () => {
  it("finds the file a 415's detail begins with, the longest name first", () => {
    const chosen = [file('notes', 1), file('notes (2).exe', 1), file('a.md', 1)];
    expect(refusedFileOf(chosen, 'notes (2).exe (application/x-msdownload) is not a document type…')).toBe(
      chosen[1],
    );
    expect(refusedFileOf(chosen, 'Unsupported media type')).toBeUndefined();
  });
});

describe('sendInRequests', () => {
  it('sends a batch that fits in one request: one job with all its files', async () => {
    const service = fakeService({ bytes: 32 * MIB, files: 100 });
    const { queued, refused } = await sendBatch(files(14), service);
    expect(service.requests).toHaveLength(1);
    expect(queued).toEqual([{ job: 'job-1', files: files(14).map((entry) => entry.name) }]);
    expect(refused.size).toBe(0);
  });

  it('sends 131 files in two requests, as the file count per request needs', async () => {
    const service = fakeService({ bytes: 32 * MIB, files: 100 });
    const { queued } = await sendBatch(files(131), service);
    expect(service.requests.map((request) => request.length)).toEqual([100, 31]);
    expect(queued.flatMap((job) => job.files)).toHaveLength(131);
  });

  it('learns a smaller byte limit from a 413 and refuses only the file over it, in words for people', async () => {
    const service = fakeService({ bytes: 64 * KIB, files: 100 });
    const big = file('big.md', 100 * KIB);
    const chosen = [...files(6, 20 * KIB), big];
    const { queued, refused, limits } = await sendBatch(chosen, service);
    expect(refused).toEqual(
      new Map([['big.md', 'this file is larger than 64 KiB, the largest this server accepts']]),
    );
    expect(queued.flatMap((job) => job.files).sort()).toEqual(
      files(6)
        .map((entry) => entry.name)
        .sort(),
    );
    // 120 KiB of small files under 64 KiB a request: two requests after the refused one.
    expect(queued).toHaveLength(2);
    expect(limits.current).toEqual({ files: 100, bytes: 64 * KIB, bytesStated: true });

    // A later batch knows the limit: nothing is sent only to be refused.
    const before = service.requests.length;
    const later = await sendBatch([file('huge.md', 65 * KIB), file('fine.md', KIB)], service, limits);
    expect(service.requests.slice(before)).toEqual([['fine.md']]);
    expect(later.refused.get('huge.md')).toBe(
      'this file is larger than 64 KiB, the largest this server accepts',
    );
  });

  it('learns a smaller file count from a 413', async () => {
    const service = fakeService({ bytes: 32 * MIB, files: 5 });
    const { queued, refused } = await sendBatch(files(12), service);
    expect(refused.size).toBe(0);
    expect(queued.map((job) => job.files.length)).toEqual([5, 5, 2]);
  });

  it('drops the file of a type the service does not read and sends the others', async () => {
    const service = fakeService({ bytes: 32 * MIB, files: 100 });
    const chosen = [file('a.md', KIB), file('tool.exe', KIB), file('b.md', KIB)];
    const { queued, refused } = await sendBatch(chosen, service);
    expect([...refused.keys()]).toEqual(['tool.exe']);
    expect(refused.get('tool.exe')).toMatch(/^this server does not read this type of file/);
    expect(queued).toEqual([{ job: 'job-1', files: ['a.md', 'b.md'] }]);
  });

  it('gives a refusal it cannot split on to every file of its request, in its words', async () => {
    const sender: RequestSender<SizedFile> = {
      limits: { current: DEFAULT_UPLOAD_LIMITS },
      send: async () => {
        throw new ApiError(503, 'The service is unavailable right now; try again in a moment.');
      },
      turn: (task) => task(),
    };
    const refused: string[] = [];
    await sendInRequests(files(3), sender, {
      sending: () => {},
      progress: () => {},
      queued: () => {},
      refused: (group, words) => refused.push(...group.map((entry) => `${entry.name}: ${words}`)),
    });
    expect(refused).toEqual(
      files(3).map((entry) => `${entry.name}: The service is unavailable right now; try again in a moment.`),
    );
  });

  it('stops at an abort', async () => {
    const sender: RequestSender<SizedFile> = {
      limits: { current: DEFAULT_UPLOAD_LIMITS },
      send: async () => {
        throw new DOMException('The upload was cancelled', 'AbortError');
      },
      turn: (task) => task(),
    };
    const events = { sending: () => {}, progress: () => {}, queued: () => {}, refused: () => {} };
    await expect(sendInRequests(files(2), sender, events)).rejects.toThrow('cancelled');
  });
});

describe('jobEntriesFor', () => {
  it("pairs files with their job's entries by name, the rest in order", () => {
    const entries = [{ name: 'b.md' }, { name: 'a%22.md' }, { name: 'c.md' }];
    expect(jobEntriesFor(['a".md', 'b.md', 'c.md', 'd.md'], entries)).toEqual([
      entries[1],
      entries[0],
      entries[2],
      undefined,
    ]);
  });
});

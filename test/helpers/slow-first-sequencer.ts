import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that take minutes, longest first. Vitest orders files by their last durations when it
 * has them, else (a clean clone, as CI runs) by size, which would start a short file that indexes
 * a 19 MiB document last, and the whole pass would wait for it alone.
 */
const SLOW_FILES = [
  'test/e2e/large-docx.test.ts',
  'src/db/repositories/lexical-ranking.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/fuzz/endpoints.fuzz.test.ts',
  'test/e2e/database-outage.test.ts',
  'test/e2e/indexing-crash.test.ts',
  'test/e2e/restart.test.ts',
  'src/indexing/parse-pool.test.ts',
  'test/e2e/worker-crash.test.ts',
  'src/http/routes/chatapp/chatapp.test.ts',
  'src/jobs/pg-boss-queue.test.ts',
  'src/db/storage-maintenance.test.ts',
  'src/indexing/regex-safety.test.ts',
  'test/e2e/archive-bomb.test.ts',
];

/** Vitest's order, with the known slow files moved to the front so both forks stay busy to the end. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FILES.findIndex((slow) => file.moduleId.replaceAll('\\', '/').endsWith(slow));
      return index < 0 ? SLOW_FILES.length : index;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

// `npm test`: lint (Biome, then the layer rules), type-check (the service and the web app), then the whole suite (on PGlite,
// again on PostgreSQL when TEST_DATABASE_URL is set, and the web app in Chromium when installed). Ends with one summary line: "tests: N passed, N failed, N skipped".
// Arguments go to vitest (`npm test -- --project 'pglite*'`). TEST_SKIP_CHECKS=1 skips lint and type-check: for a
// second pass of the same tree (CI runs the PGlite pass apart from the others, .ci/run), which checked them once.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const run = (command, args) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;

const checks = [
  ['npx', ['biome', 'check', '.']],
  // The layers of docs/ARCHITECTURE.md: a wrong-way import fails here.
  ['npx', ['depcruise', 'src', 'web/src', '--config', '.dependency-cruiser.cjs']],
  ['npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['npx', ['tsc', '-p', 'web/tsconfig.json']],
];
for (const [command, args] of process.env.TEST_SKIP_CHECKS === '1' ? [] : checks) {
  const status = run(command, args);
  if (status !== 0) process.exit(status);
}

const reportDir = mkdtempSync(path.join(tmpdir(), 'vitest-report-'));
const reportFile = path.join(reportDir, 'report.json');
const status = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reportFile}`,
  ...process.argv.slice(2),
]);
try {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
} catch {
  console.log('tests: the runner wrote no report');
}
rmSync(reportDir, { recursive: true, force: true });
process.exit(status);

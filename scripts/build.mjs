// `npm run build`, and `npm start` before it starts: compiles src/ into dist/, then copies the SQL
// migrations beside the compiled code. The compilation is incremental (TypeScript's build mode with
// its build info in dist/): with unchanged sources nothing is compiled, so a restart is quick; a
// changed source recompiles what depends on it; a deleted dist/, or any compiled file missing from
// it, compiles everything. It runs in this one process, so a signal stops the whole build.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

/** Whether a source file has no compiled counterpart (dist/ pruned by hand, say). */
function anyOutputMissing() {
  return readdirSync('src', { recursive: true, encoding: 'utf8' }).some(
    (file) =>
      file.endsWith('.ts') &&
      !file.endsWith('.test.ts') &&
      !file.endsWith('.d.ts') &&
      !existsSync(path.join('dist/src', file.replace(/\.ts$/, '.js'))),
  );
}

const reportDiagnostic = ts.createDiagnosticReporter(ts.sys, process.stdout.isTTY === true);
const host = ts.createSolutionBuilderHost(ts.sys, undefined, reportDiagnostic);
const builder = ts.createSolutionBuilder(host, ['tsconfig.build.json'], { force: anyOutputMissing() });
if (builder.build() !== ts.ExitStatus.Success) process.exit(1);

cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });

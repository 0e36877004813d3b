// `npm run build`, and `npm start` before it starts: compiles src/ into dist/, then copies the SQL
// migrations beside the compiled code, then builds the web app (web/) into dist/web with Vite.
// Both steps skip what has not changed, so a restart is quick: the compilation is incremental
// (TypeScript's build mode with its build info in dist/; a deleted dist/, or any compiled file
// missing from it, compiles everything), and the web app is built only when a fingerprint of
// web/ (and of the locked dependencies) differs from the last build's, kept in dist/. It runs in
// this one process, so a signal stops the whole build.
// A first build takes minutes: each step says what it is doing and how long it took, or that it
// was up to date, so that a first `npm start` does not look hung.
import { createHash } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

const WEB_CONFIG = 'web/vite.config.ts';
const WEB_OUT = 'dist/web';
const WEB_FINGERPRINT = 'dist/web.fingerprint';

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

/**
 * A hash of every file under web/ (names and contents; web/node_modules aside) and of
 * package-lock.json (a new React or Vite builds anew). Contents, not times: a checkout or a copy
 * that touches every file changes nothing, and hashing a few hundred KiB takes milliseconds.
 */
function webFingerprint() {
  const hash = createHash('sha256');
  const add = (file) => hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  const walk = (folder) => {
    const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const file = path.posix.join(folder, entry.name);
      if (entry.isDirectory() && file !== 'web/node_modules') walk(file);
      else if (entry.isFile()) add(file);
    }
  };
  walk('web');
  if (existsSync('package-lock.json')) add('package-lock.json');
  return hash.digest('hex');
}

/** Builds web/ into dist/web unless the last build was of the same files; exits 1 when Vite fails. */
async function buildWebApp() {
  if (!existsSync(WEB_CONFIG)) {
    console.warn(`${WEB_CONFIG} not found: the web app is not built (the service answers / with 503).`);
    return;
  }
  const fingerprint = webFingerprint();
  const built =
    existsSync(path.join(WEB_OUT, 'index.html')) &&
    existsSync(WEB_FINGERPRINT) &&
    readFileSync(WEB_FINGERPRINT, 'utf8').trim() === fingerprint;
  if (built) {
    console.log('the web app is up to date');
    return;
  }
  // A failed or interrupted build must not pass for the last good one.
  rmSync(WEB_FINGERPRINT, { force: true });
  const began = performance.now();
  process.stdout.write('building the web app… ');
  try {
    // Imported only when needed: loading Vite costs more than the whole unchanged-build check.
    const { build } = await import('vite');
    await build({ configFile: WEB_CONFIG, logLevel: 'warn' });
  } catch (error) {
    console.log('failed');
    console.error(`The web app's build failed (vite build --config ${WEB_CONFIG}):`);
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  compressWebFiles(WEB_OUT);
  writeFileSync(WEB_FINGERPRINT, `${fingerprint}\n`);
  console.log(`done in ${secondsSince(began)}`);
}

/** `41.2 s`: a step's duration as it is printed. */
function secondsSince(began) {
  return `${((performance.now() - began) / 1000).toFixed(1)} s`;
}

/**
 * Writes a Brotli (.br) and a gzip (.gz) copy beside each text file of the build, once, at the
 * highest levels: the service sends them as they are to browsers that take them (a third of the
 * bytes over a slow link), with no compression work per request.
 */
function compressWebFiles(folder) {
  for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(js|css|html|svg|json|txt|map)$/.test(file)) continue;
    const full = path.join(folder, file);
    const bytes = readFileSync(full);
    if (bytes.length < 1024) continue;
    writeFileSync(
      `${full}.br`,
      brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(`${full}.gz`, gzipSync(bytes, { level: 9 }));
  }
}

const BUILD_LOCK = 'dist/.build.lock';

/**
 * One build of this folder at a time: two at once (two `npm start`s, or a test's build beside
 * another's) would write the same files and empty dist/web under each other. A lock file holding
 * the builder's pid; a lock whose process is gone is taken over.
 */
async function takeBuildLock() {
  mkdirSync('dist', { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  let toldWaiting = false;
  for (;;) {
    try {
      const fd = openSync(BUILD_LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      process.on('exit', () => rmSync(BUILD_LOCK, { force: true }));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(BUILD_LOCK, 'utf8').trim());
    if (!isAlive(owner)) {
      rmSync(BUILD_LOCK, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another build (pid ${owner}) holds ${BUILD_LOCK}`);
    if (!toldWaiting) {
      console.log(`waiting for another build of this folder (pid ${owner}) to finish…`);
      toldWaiting = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

await takeBuildLock();
// Stopped mid-build: the lock goes with the process (exit status as a signal's: 128 + its number).
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

/**
 * Compiles src/ into dist/ when anything changed; exits 1 with the compiler's errors. Asking the
 * builder for its next out-of-date project first tells an up-to-date server (nothing to do, or
 * only the outputs' time stamps to refresh) from one to compile before any work starts.
 */
function buildServer() {
  // Kept until the step's line is complete, then printed under it.
  const diagnostics = [];
  const host = ts.createSolutionBuilderHost(ts.sys, undefined, (diagnostic) => diagnostics.push(diagnostic));
  const builder = ts.createSolutionBuilder(host, ['tsconfig.build.json'], { force: anyOutputMissing() });
  let project = builder.getNextInvalidatedProject();
  const compiles = project !== undefined && project.kind === ts.InvalidatedProjectKind.Build;
  const began = performance.now();
  if (compiles) process.stdout.write('building the server… ');
  let failed = false;
  for (; project !== undefined; project = builder.getNextInvalidatedProject()) {
    if (project.done() !== ts.ExitStatus.Success) failed = true;
  }
  if (compiles) console.log(failed ? 'failed' : `done in ${secondsSince(began)}`);
  else console.log(failed ? 'the server failed to build' : 'the server is up to date');
  const report = ts.createDiagnosticReporter(ts.sys, process.stdout.isTTY === true);
  for (const diagnostic of diagnostics) report(diagnostic);
  if (failed) process.exit(1);
}

buildServer();
cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
await buildWebApp();

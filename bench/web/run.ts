// `npm run bench:web` (`npx tsx bench/web/run.ts`): the web app as a person meets it. The service
// (built, as `npm start` runs it, on PGlite) holds SciFact's 5,183 abstracts in one team; then
// - Lighthouse (Debian's Chromium) scores the ask page and the documents page, signed in;
// - the JavaScript the signed-in first page loads until the network is idle, gzipped;
// - in Chromium, from pressing Enter in the question box to the first answer text painted, over
//   SciFact's test questions asked one by one, each in a new chat (the extractive answerer);
// - a screenshot of each page into docs/screenshots/.
// Writes the web section of docs/benchmarks.md. `--questions=N` (default 40), `--no-write`.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumPath } from '../../test/helpers/browser.js';
import { installCleanupHandlers, onCleanup, runBenchmark, runCleanups } from '../lib/children.js';
import { expectJson } from '../lib/http.js';
import { ROOT } from '../lib/paths.js';
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  markdownTable,
  publishSection,
} from '../lib/report.js';
import { DEFAULT_SCIFACT_DIR, loadScifact } from '../lib/scifact.js';
import { buildService, startService } from '../lib/service.js';
import { summarise } from '../lib/stats.js';
import { scifactUploads, uploadAndWait, uploadBatches } from '../lib/upload.js';

const NAME = 'web';
const TARGETS = {
  performance: 95,
  accessibility: 100,
  bestPractices: 95,
  firstPageKb: 150,
  firstTextP50Ms: 300,
};
const EMAIL = 'bench-web@example.com';
const PASSWORD = 'bench web passphrase';

const progress = (message: string) => process.stderr.write(`bench:web ${message}\n`);

function option(name: string, fallback: string): string {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return given === undefined ? fallback : given.slice(name.length + 3);
}

/**
 * The gzipped size of the JavaScript the signed-in first page (the ask page) loads until the
 * network is idle: index.html's scripts and preloads, and any chunk the page fetches as it starts
 * (the answer renderer comes only once a question is typed), each read from the build.
 */
async function firstPageScriptBytes(
  context: BrowserContext,
  webDir: string,
): Promise<{ files: string[]; gzipBytes: number }> {
  const page = await context.newPage();
  const files = new Set<string>();
  page.on('request', (request) => {
    if (request.resourceType() === 'script') files.add(new URL(request.url()).pathname.replace(/^\//, ''));
  });
  await page.goto('/', { waitUntil: 'networkidle' });
  await page.close();
  const gzipBytes = [...files].reduce(
    (sum, file) => sum + gzipSync(readFileSync(path.join(webDir, file)), { level: 9 }).length,
    0,
  );
  return { files: [...files], gzipBytes };
}

interface Scores {
  readonly performance: number;
  readonly accessibility: number;
  readonly bestPractices: number;
  /** The metrics behind the performance score, so that a fall can be traced to one of them. */
  readonly metrics: string;
}

const PERFORMANCE_METRICS = [
  ['first-contentful-paint', 'FCP'],
  ['largest-contentful-paint', 'LCP'],
  ['total-blocking-time', 'TBT'],
  ['cumulative-layout-shift', 'CLS'],
  ['speed-index', 'SI'],
] as const;

/** Lighthouse's own advice on its variance: run it several times and report the median run. */
const LIGHTHOUSE_RUNS = 3;

async function medianLighthouseScores(url: string, cookie: string, chromePath: string): Promise<Scores> {
  const runs: Scores[] = [];
  for (let run = 0; run < LIGHTHOUSE_RUNS; run += 1)
    runs.push(await lighthouseScores(url, cookie, chromePath));
  runs.sort((a, b) => a.performance - b.performance);
  const median = runs[Math.floor(runs.length / 2)];
  if (median === undefined) throw new Error('Lighthouse did not run');
  return median;
}

async function lighthouseScores(url: string, cookie: string, chromePath: string): Promise<Scores> {
  const profile = mkdtempSync(path.join(tmpdir(), 'bench-web-lh-'));
  const chrome = await chromeLauncher.launch({
    chromePath,
    userDataDir: profile,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
      extraHeaders: { Cookie: cookie },
    });
    const categories = result?.lhr.categories;
    const score = (id: string) => Math.round((categories?.[id]?.score ?? 0) * 100);
    const metrics = PERFORMANCE_METRICS.map(([id, name]) =>
      `${name} ${result?.lhr.audits[id]?.displayValue ?? '?'}`.replace(/\u00a0/g, ' '),
    ).join(', ');
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      metrics,
    };
  } finally {
    chrome.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Asks `question` in a new chat and answers the time from Enter to the first answer text painted:
 * an observer in the page notes when the answer region first holds text, then waits for the
 * frame that paints it.
 */
async function timeToFirstAnswerText(page: Page, question: string): Promise<number> {
  await page.goto('/');
  const box = page.getByLabel('Ask a question');
  await box.fill(question);
  const measured = page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const scope = globalThis as unknown as {
          document: {
            querySelector(selector: string): { textContent: string | null } | null;
            body: unknown;
            addEventListener(
              type: string,
              listener: (event: { key: string }) => void,
              capture: boolean,
            ): void;
          };
          MutationObserver: new (
            callback: () => void,
          ) => { observe(node: unknown, options: object): void; disconnect(): void };
          requestAnimationFrame(callback: () => void): void;
          performance: { now(): number };
        };
        let pressedAt = 0;
        scope.document.addEventListener(
          'keydown',
          (event) => {
            if (event.key === 'Enter' && pressedAt === 0) pressedAt = scope.performance.now();
          },
          true,
        );
        const observer = new scope.MutationObserver(() => {
          const text =
            scope.document.querySelector('section[aria-label="Answer"] .answer-text')?.textContent ?? '';
          if (pressedAt === 0 || text.trim() === '') return;
          observer.disconnect();
          // The text is in the DOM; the frame after the next one has painted it.
          scope.requestAnimationFrame(() =>
            scope.requestAnimationFrame(() => resolve(scope.performance.now() - pressedAt)),
          );
        });
        observer.observe(scope.document.body, { childList: true, subtree: true, characterData: true });
      }),
  );
  await box.press('Enter');
  const elapsed = await measured;
  await page.getByRole('button', { name: 'Ask', exact: true }).waitFor({ timeout: 30_000 });
  return elapsed;
}

async function main(): Promise<void> {
  const stopHandlers = installCleanupHandlers(60 * 60_000);
  const write = !process.argv.includes('--no-write');
  const questionCount = Number(option('questions', '40'));
  const chromePath = chromiumPath();
  if (chromePath === undefined) throw new Error('Chromium is missing: run scripts/setup-chromium.sh');

  progress('npm run build');
  await buildService();
  const webDir = path.join(ROOT, 'dist/web');

  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-web-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = await startService('service', { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const registration = (await expectJson([201], 'POST', `${service.url}/v2/users/register`, {
    email: EMAIL,
    password: PASSWORD,
    name: 'Bench Web',
  })) as { access_token: string };
  const headers = { authorization: `Bearer ${registration.access_token}` };

  const scifact = loadScifact(process.env.BENCH_SCIFACT_DIR ?? DEFAULT_SCIFACT_DIR);
  progress(`uploading ${scifact.documents.length} SciFact abstracts`);
  const { bodies, sizes } = uploadBatches(scifactUploads(scifact.documents), 200);
  await uploadAndWait(service.url, headers, bodies, sizes, {
    inFlight: 2,
    timeoutSeconds: 1800,
    alive: () => service.child.process.exitCode === null && service.child.process.signalCode === null,
    progress,
  });

  const session = await fetch(`${service.url}/v1/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.url },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (session.status !== 200 || !cookie.startsWith('ka_session=')) {
    throw new Error(`signing in answered ${session.status}`);
  }

  progress(`Lighthouse: ask page, documents page, ${LIGHTHOUSE_RUNS} runs each`);
  const askScores = await medianLighthouseScores(`${service.url}/`, cookie, chromePath);
  const documentsScores = await medianLighthouseScores(`${service.url}/documents`, cookie, chromePath);

  progress(`asking ${questionCount} questions in Chromium`);
  const browser = await chromium.launch({
    executablePath: chromePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  onCleanup(() => browser.close());
  const context = await browser.newContext({ baseURL: service.url, viewport: { width: 1280, height: 800 } });
  await context.addCookies([
    { name: 'ka_session', value: cookie.slice('ka_session='.length), url: service.url, httpOnly: true },
  ]);
  const script = await firstPageScriptBytes(context, webDir);
  const page = await context.newPage();
  const questions = scifact.queries.slice(0, questionCount);
  // One question first, unmeasured: the Markdown chunk and the caches warm up as for a person.
  await timeToFirstAnswerText(page, questions[0]?.text ?? 'warm up');
  const timings: number[] = [];
  for (const question of questions) timings.push(await timeToFirstAnswerText(page, question.text));
  const firstText = summarise(timings);

  const screenshots = path.join(ROOT, 'docs/screenshots');
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, 'ask.png') });
  await page.goto('/documents');
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
  await page.getByRole('row').nth(1).waitFor();
  await page.screenshot({ path: path.join(screenshots, 'documents.png') });
  await browser.close();
  await service.stop();

  const kb = script.gzipBytes / 1024;
  const checks = [
    {
      what: 'Lighthouse performance, ask / documents',
      value: `${askScores.performance} / ${documentsScores.performance}`,
      target: `≥ ${TARGETS.performance}`,
      met: Math.min(askScores.performance, documentsScores.performance) >= TARGETS.performance,
    },
    {
      what: 'Lighthouse accessibility, ask / documents',
      value: `${askScores.accessibility} / ${documentsScores.accessibility}`,
      target: `${TARGETS.accessibility}`,
      met: Math.min(askScores.accessibility, documentsScores.accessibility) >= TARGETS.accessibility,
    },
    {
      what: 'Lighthouse best practices, ask / documents',
      value: `${askScores.bestPractices} / ${documentsScores.bestPractices}`,
      target: `≥ ${TARGETS.bestPractices}`,
      met: Math.min(askScores.bestPractices, documentsScores.bestPractices) >= TARGETS.bestPractices,
    },
    {
      what: 'JavaScript the first page loads (gzip)',
      value: `${formatNumber(kb, 1)} KB (${script.files.length} ${script.files.length === 1 ? 'file' : 'files'})`,
      target: `≤ ${TARGETS.firstPageKb} KB`,
      met: kb <= TARGETS.firstPageKb,
    },
    {
      what: `Enter to first answer text painted, p50 (p90) over ${timings.length} questions, ms`,
      value: `${formatMs(firstText.p50)} (${formatMs(firstText.p90)})`,
      target: `p50 ≤ ${TARGETS.firstTextP50Ms} ms`,
      met: firstText.p50 <= TARGETS.firstTextP50Ms,
    },
  ];
  const markdown = [
    '## Web app',
    '',
    `\`${commandLine('bench:web', 'bench/web/run.ts')}\` on ${environmentLine()}. The built service on PGlite with`,
    `SciFact's ${scifact.documents.length} abstracts in the team, the extractive answerer; Lighthouse 12 with`,
    "its default (mobile, simulated throttling) settings in Debian's Chromium, signed in by the session cookie;",
    `each page's median of ${LIGHTHOUSE_RUNS} runs.`,
    '',
    markdownTable(
      ['Figure', 'Measured', 'Target', 'Met'],
      checks.map((check) => [check.what, check.value, check.target, check.met ? 'yes' : 'no']),
      ['l', 'r', 'r', 'l'],
    ),
    '',
    `Lighthouse metrics of those runs: ask ${askScores.metrics}; documents ${documentsScores.metrics}.`,
    '',
    'Screenshots: [ask](screenshots/ask.png), [documents](screenshots/documents.png).',
  ].join('\n');
  publishSection(NAME, { markdown, checks }, { write }, progress);
  await runCleanups();
  stopHandlers();
}

runBenchmark(NAME, main);

// `npm run bench:answer` (`npx tsx bench/answer/run.ts`): on the same kind of 100,000-chunk team
// as bench/search, the time to the first answer line of POST /v1/chat/ with the extractive
// answerer, and the acknowledgement latency of POST /v1/chatapp/answer under bursts of signed
// Slack direct messages (answered by the worker into a fake Slack server). Writes the answer
// section of docs/benchmarks.md. `--help` lists the settings.

import { parseConfig } from '../../src/config.js';
import { signSlackRequest } from '../../src/security/slack-signature.js';
import type { FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { installCleanupHandlers, runBenchmark, runCleanups } from '../lib/children.js';
import { forgetKeptData } from '../lib/data-cache.js';
import {
  type AvailableDatabases,
  availableDatabases,
  type Check,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
import { expectJson } from '../lib/http.js';
import { type LatencyRun, timeRequests } from '../lib/latency.js';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres.js';
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  markdownTable,
  publishSection,
} from '../lib/report.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type ScifactQuery } from '../lib/scifact.js';
import { searchOnce } from '../lib/search-client.js';
import { buildService, startBaseline } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { type Percentiles, sleep, summarise } from '../lib/stats.js';
import {
  BENCH_SLACK_APP,
  readTeamDataSettings,
  storedDataLine,
  TEAM_DATA_BOOLEAN_FLAGS,
  TEAM_DATA_FLAGS,
  TEAM_DATA_USAGE,
  type TeamData,
  type TeamDataSettings,
  teamDataDescription,
} from '../lib/team-fixture.js';
import { withTeamService } from '../lib/team-service.js';

const NAME = 'answer';
/** The issue's targets. */
const TARGETS = { firstAnswerP50Ms: 150, slackAckP99Ms: 100 };

const USAGE = `npx tsx bench/answer/run.ts [options]   (npm run bench:answer -- [options])

On a big team (as bench/search builds it), times the first answer line of POST /v1/chat/ and the
acknowledgement of signed Slack events at POST /v1/chatapp/answer.

Options (or the BENCH_* variable in brackets):
  --databases LIST        postgres and/or pglite (BENCH_DATABASES, default postgres,pglite)
${TEAM_DATA_USAGE}
  --questions N           SciFact test queries asked in the web chat (BENCH_QUESTIONS, default 100)
  --clients N             clients of the concurrent chat pass (BENCH_CLIENTS, default 4)
  --warmup N              questions asked before measuring (BENCH_WARMUP, default 10)
  --events N              signed Slack events sent at once in each burst (BENCH_EVENTS, default 50)
  --bursts N              bursts measured, each once the last one's answers are posted (BENCH_BURSTS, default 4)
  --dataset DIR           the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
${serviceRunUsage(26)}
  --forget-data           remove the data kept by --keep-data (for every setting) and stop
  -h, --help              this text
  PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_BENCH_DATABASE_URL})`;

interface AnswerSettings {
  readonly databases: readonly DatabaseName[];
  readonly data: TeamDataSettings;
  readonly questions: number;
  readonly clients: number;
  readonly warmup: number;
  readonly events: number;
  readonly bursts: number;
  readonly datasetDir: string;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
  readonly forgetData: boolean;
}

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): AnswerSettings {
  const values = parseFlags(
    argv,
    ['databases', ...TEAM_DATA_FLAGS, 'questions', 'clients', 'warmup', 'events', 'bursts', 'dataset'],
    [...SERVICE_RUN_FLAGS, 'forget-data', ...TEAM_DATA_BOOLEAN_FLAGS],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  return {
    databases: read.list('databases', 'BENCH_DATABASES', ['postgres', 'pglite'], ['postgres', 'pglite']),
    data: readTeamDataSettings(read),
    questions: read.number('questions', 'BENCH_QUESTIONS', 100, 1, 100_000),
    clients: read.number('clients', 'BENCH_CLIENTS', 4, 1, 256),
    warmup: read.number('warmup', 'BENCH_WARMUP', 10, 0, 10_000),
    events: read.number('events', 'BENCH_EVENTS', 50, 1, 10_000),
    bursts: read.number('bursts', 'BENCH_BURSTS', 4, 1, 1000),
    datasetDir: read.string('dataset', 'BENCH_SCIFACT_DIR', DEFAULT_SCIFACT_DIR),
    ...read.serviceRun(),
    forgetData: values['forget-data'] === true,
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

/** What one web chat answer took, from sending the question. */
interface ChatTiming {
  /** Response headers received. */
  readonly headersMs: number;
  /** The first `{"answer": …}` line read. */
  readonly firstAnswerMs: number;
  /** The `{"done": true}` line read. */
  readonly doneMs: number;
  readonly answerChars: number;
  readonly sources: number;
}

/** Asks one question in the web chat and reads the NDJSON stream as a client would. */
async function askOnce(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  userContext: Record<string, unknown>,
  question: string,
): Promise<ChatTiming> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/v1/chat/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: JSON.stringify({ role: 'user', content: question, user_context: userContext }),
    signal: AbortSignal.timeout(60_000),
  });
  const headersMs = performance.now() - started;
  if (response.status !== 200 || response.body === null) {
    throw new Error(`POST /v1/chat/ answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let firstAnswerMs: number | undefined;
  let doneMs: number | undefined;
  let answerChars = 0;
  let sources = 0;
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') continue;
      const event = JSON.parse(line) as {
        answer?: string;
        sources?: unknown[];
        done?: boolean;
        error?: { code: string; message: string };
      };
      if (event.error !== undefined)
        throw new Error(`the answer failed: ${event.error.code}: ${event.error.message}`);
      if (typeof event.answer === 'string') {
        firstAnswerMs ??= performance.now() - started;
        answerChars += event.answer.length;
      }
      if (Array.isArray(event.sources)) sources = event.sources.length;
      if (event.done === true) doneMs = performance.now() - started;
    }
  }
  if (firstAnswerMs === undefined || doneMs === undefined)
    throw new Error('the stream ended without an answer');
  return { headersMs, firstAnswerMs, doneMs, answerChars, sources };
}

interface ChatPass {
  readonly clients: number;
  readonly firstAnswer: Percentiles;
  readonly done: Percentiles;
  readonly headers: Percentiles;
  readonly perSecond: number;
  readonly errors: readonly string[];
  /** Answers that cited no source (nothing relevant found, or no citation). */
  readonly withoutSources: number;
  readonly meanAnswerChars: number;
}

async function chatPass(
  baseUrl: string,
  teamData: TeamData,
  userContext: Record<string, unknown>,
  questions: readonly ScifactQuery[],
  clients: number,
): Promise<ChatPass> {
  const timings: ChatTiming[] = [];
  const run = await timeRequests(questions, clients, async (question) => {
    const timing = await askOnce(baseUrl, teamData.fixture.big.headers, userContext, question.text);
    timings.push(timing);
    return timing.firstAnswerMs;
  });
  return {
    clients,
    firstAnswer: run.latency,
    done: summarise(timings.map((timing) => timing.doneMs)),
    headers: summarise(timings.map((timing) => timing.headersMs)),
    perSecond: run.perSecond,
    errors: run.errors,
    withoutSources: timings.filter((timing) => timing.sources === 0).length,
    meanAnswerChars:
      timings.reduce((sum, timing) => sum + timing.answerChars, 0) / Math.max(1, timings.length),
  };
}

/** One burst of requests sent at once, and their latencies. */
interface Burst {
  readonly latencies: readonly number[];
  readonly failures: readonly string[];
  /** Slack: from the burst's start until the worker had posted every answer (ms). */
  readonly answeredMs: number | undefined;
}

let eventCounter = 0;

/** The Slack user who asks: the big team's owner (`users.info` gives their e-mail), by direct message. */
const ASKER_SLACK_ID = 'U0ASKER001';

/**
 * A signed `event_callback` delivery of a direct message to the bot, as Slack sends it: the bot
 * answers a DM with its asker's access (the owner may open every document of the big team; a
 * channel would read only team-wide ones, and it has none).
 */
function slackDelivery(
  teamData: TeamData,
  question: string,
): { body: string; headers: Record<string, string> } {
  eventCounter += 1;
  const { installation } = teamData.fixture;
  const ts = `${1_800_000_000 + eventCounter}.${String(eventCounter).padStart(6, '0')}`;
  const body = JSON.stringify({
    token: 'legacy-verification-token',
    team_id: installation.teamId,
    api_app_id: BENCH_SLACK_APP.appId,
    event: {
      type: 'message',
      channel_type: 'im',
      user: ASKER_SLACK_ID,
      text: question,
      ts,
      channel: 'D0BENCH001',
      event_ts: ts,
    },
    type: 'event_callback',
    event_id: `Ev0BENCH${process.pid}x${eventCounter}`,
    event_time: 1_800_000_000 + eventCounter,
    authorizations: [{ team_id: installation.teamId, user_id: installation.botUserId, is_bot: true }],
    is_ext_shared_channel: false,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signSlackRequest(BENCH_SLACK_APP.signingSecret, timestamp, body),
    },
  };
}

/** Sends `count` requests at once (each on its own connection); answers their latencies. */
async function burst(
  count: number,
  request: (index: number) => {
    url: string;
    init: RequestInit;
    check: (status: number, text: string) => string | undefined;
  },
): Promise<{ latencies: number[]; failures: string[] }> {
  const prepared = Array.from({ length: count }, (_, index) => request(index));
  const latencies: number[] = [];
  const failures: string[] = [];
  await Promise.all(
    prepared.map(async ({ url, init, check }) => {
      const started = performance.now();
      try {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
        const text = await response.text();
        latencies.push(performance.now() - started);
        const problem = check(response.status, text);
        if (problem !== undefined) failures.push(problem);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }),
  );
  return { latencies, failures };
}

interface DatabaseOutcome {
  readonly database: DatabaseName;
  readonly teamData: TeamData;
  readonly sizeMiB: number;
  readonly search: LatencyRun;
  readonly chat: readonly ChatPass[];
  readonly slack: readonly Burst[];
  readonly baseline: readonly Burst[];
  readonly warmupAnswered: boolean;
}

async function waitForMessages(slack: FakeSlackServer, count: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (slack.messages.length < count) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

async function measureOn(
  settings: AnswerSettings,
  available: AvailableDatabases,
  name: DatabaseName,
  corpus: ReturnType<typeof loadScifact>,
): Promise<DatabaseOutcome> {
  const label = DATABASE_LABEL[name];
  const log = (message: string) => progress(`${label}: ${message}`);
  const setup = { benchmark: NAME, database: name, available, settings, corpus: corpus.documents, log };
  return withTeamService({ ...setup, slackApp: true }, async ({ teamData, sizeMiB, service, slack }) => {
    const url = service.url;
    const { big } = teamData.fixture;
    slack.addUser({ id: ASKER_SLACK_ID, teamId: teamData.fixture.installation.teamId, email: big.email });
    const userContext = (await expectJson(
      [200],
      'GET',
      `${url}/v1/users/me`,
      undefined,
      big.headers,
    )) as Record<string, unknown>;
    const questions = corpus.queries.slice(0, settings.questions);
    const warmup = corpus.queries.slice(-settings.warmup);

    // The web chat: first the search it starts with (the same questions, the same top_k), then
    // the chat, one client at a time, then several.
    for (const question of warmup) await askOnce(url, big.headers, userContext, question.text);
    const passages = parseConfig({}).answering.passages;
    const search = await timeRequests(
      questions,
      1,
      async (question) => (await searchOnce(url, big.headers, { query: question.text, top_k: passages })).ms,
    );
    log(
      `search (top_k ${passages}), 1 client: p50 ${formatMs(round(search.latency.p50))} ms, p99 ${formatMs(round(search.latency.p99))} ms`,
    );
    const chat: ChatPass[] = [];
    for (const clients of settings.clients > 1 ? [1, settings.clients] : [1]) {
      const pass = await chatPass(url, teamData, userContext, questions, clients);
      chat.push(pass);
      log(
        `chat, ${clients} client(s): first answer line p50 ${formatMs(round(pass.firstAnswer.p50))} ms, p90 ${formatMs(round(pass.firstAnswer.p90))} ms, p99 ${formatMs(round(pass.firstAnswer.p99))} ms; whole answer p50 ${formatMs(round(pass.done.p50))} ms; ${pass.errors.length} failed${pass.errors.length > 0 ? ` (${pass.errors[0]})` : ''}; ${pass.withoutSources} without sources`,
      );
    }

    // Slack: a bare fastify route under the same bursts, then the signed events.
    const baselineServer = await startBaseline();
    const baseline: Burst[] = [];
    try {
      for (let index = 0; index <= settings.bursts; index += 1) {
        const result = await burst(settings.events, () => ({
          url: `${baselineServer.url}/`,
          init: { method: 'GET' },
          check: (status) => (status === 200 ? undefined : `status ${status}`),
        }));
        // The first burst opens the connections: not measured, as for the service.
        if (index > 0) baseline.push({ ...result, answeredMs: undefined });
      }
    } finally {
      await baselineServer.stop();
    }
    const slackBursts: Burst[] = [];
    let posted = 0;
    let warmupAnswered = true;
    for (let index = 0; index <= settings.bursts; index += 1) {
      // The first burst is a warm-up of the same size (connections, compiled code, the worker's
      // first answers, a batch as large as the measured ones): not measured.
      const size = settings.events;
      const started = performance.now();
      const result = await burst(size, (position) => {
        const question = questions[(index * settings.events + position) % questions.length] as ScifactQuery;
        const delivery = slackDelivery(teamData, question.text);
        return {
          url: `${url}/v1/chatapp/answer`,
          init: { method: 'POST', headers: delivery.headers, body: delivery.body },
          check: (status, text) =>
            status === 200 && text.includes('"queued"')
              ? undefined
              : `status ${status}: ${text.slice(0, 200)}`,
        };
      });
      posted += size - result.failures.length;
      const answered = await waitForMessages(slack, posted, 180_000);
      const answeredMs = answered ? performance.now() - started : undefined;
      if (index === 0) {
        warmupAnswered = answered;
        continue;
      }
      slackBursts.push({ ...result, answeredMs });
      const latency = summarise(result.latencies, result.failures.length);
      log(
        `Slack burst ${index} of ${size}: ack p50 ${formatMs(round(latency.p50))} ms, p99 ${formatMs(round(latency.p99))} ms, max ${formatMs(round(latency.max))} ms; ${result.failures.length} failed${result.failures.length > 0 ? ` (${result.failures[0]})` : ''}; ${answered ? `all answered in Slack after ${((answeredMs ?? 0) / 1000).toFixed(1)} s` : `only ${slack.messages.length} of ${posted} answers posted`}`,
      );
    }
    const messages = slack.messages;
    const wrongThread = messages.filter((message) => message.threadTs === undefined).length;
    if (wrongThread > 0) log(`${wrongThread} Slack answers were not posted in a thread`);
    return { database: name, teamData, sizeMiB, search, chat, slack: slackBursts, baseline, warmupAnswered };
  });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function cells(latency: Percentiles): string[] {
  return [
    formatNumber(latency.count + latency.failed),
    formatMs(round(latency.p50)),
    formatMs(round(latency.p90)),
    formatMs(round(latency.p99)),
    formatMs(round(latency.max)),
  ];
}

function databaseSection(
  outcome: DatabaseOutcome,
  settings: AnswerSettings,
): { lines: string[]; checks: Check[] } {
  const label = DATABASE_LABEL[outcome.database];
  const checks: Check[] = [];
  const sequential = outcome.chat.find((pass) => pass.clients === 1);
  const chatChecked = outcome.database === 'postgres' && sequential !== undefined;
  if (chatChecked && sequential !== undefined) {
    const p50 = sequential.firstAnswer.p50;
    const met = p50 <= TARGETS.firstAnswerP50Ms && sequential.errors.length === 0;
    checks.push({
      met,
      text: `web chat on ${label}: **${met ? 'met' : 'not met'}**: first answer line p50 ${formatMs(round(p50))} ms (target ≤ ${TARGETS.firstAnswerP50Ms} ms) ${p50 <= TARGETS.firstAnswerP50Ms ? '✓' : '✗'}; ${sequential.errors.length} failed ${sequential.errors.length === 0 ? '✓' : '✗'}`,
    });
  }
  const acks = summarise(
    outcome.slack.flatMap((entry) => entry.latencies),
    outcome.slack.reduce((sum, entry) => sum + entry.failures.length, 0),
  );
  const baseline = summarise(
    outcome.baseline.flatMap((entry) => entry.latencies),
    outcome.baseline.reduce((sum, entry) => sum + entry.failures.length, 0),
  );
  const ackMet = acks.p99 <= TARGETS.slackAckP99Ms && acks.failed === 0;
  checks.push({
    met: ackMet,
    text: `Slack acknowledgements on ${label}: **${ackMet ? 'met' : 'not met'}**: p99 ${formatMs(round(acks.p99))} ms over ${formatNumber(acks.count)} events in bursts of ${settings.events} (target ≤ ${TARGETS.slackAckP99Ms} ms) ${acks.p99 <= TARGETS.slackAckP99Ms ? '✓' : '✗'}; ${acks.failed} not acknowledged with 200 ${acks.failed === 0 ? '✓' : '✗'}`,
  });
  const chatRows = [
    [
      `search (\`top_k\` ${parseConfig({}).answering.passages}), the baseline`,
      '1',
      ...cells(outcome.search.latency),
      '',
      '',
    ],
    ...outcome.chat.flatMap((pass) => [
      [
        'chat: first answer line',
        String(pass.clients),
        ...cells(pass.firstAnswer),
        `${(pass.firstAnswer.p50 / outcome.search.latency.p50).toFixed(1)}×`,
        pass.clients === 1 && chatChecked ? (checks[0]?.met === true ? 'met' : '**not met**') : '',
      ],
      ['chat: whole answer (`done`)', String(pass.clients), ...cells(pass.done), '', ''],
    ]),
  ];
  const chatTable = markdownTable(
    ['Request', 'clients', 'requests', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'p50 vs search', 'Target'],
    chatRows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const answered = outcome.slack.map((entry) => entry.answeredMs);
  const slackTable = markdownTable(
    [
      'Request',
      'at once',
      'requests',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'failed',
      'all answered after',
      'Target',
    ],
    [
      [
        'bare fastify `GET /`, the baseline',
        String(settings.events),
        ...cells(baseline),
        String(baseline.failed),
        '',
        '',
      ],
      [
        'signed direct message to `POST /v1/chatapp/answer`',
        String(settings.events),
        ...cells(acks),
        String(acks.failed),
        answered.every((value) => value !== undefined)
          ? `${answered.map((value) => ((value ?? 0) / 1000).toFixed(1)).join(' / ')} s`
          : 'not all answered',
        ackMet ? 'met' : '**not met**',
      ],
    ],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const pass = sequential;
  const lines = [
    `### ${label}`,
    '',
    storedDataLine(outcome.teamData, settings.data.dimensions, outcome.sizeMiB),
    '',
    chatTable,
    '',
    ...(pass === undefined
      ? []
      : [
          `Answers averaged ${formatNumber(pass.meanAnswerChars)} characters; ${pass.withoutSources} of ${formatNumber(pass.firstAnswer.count)} cited no source. Response headers came after a p50 of ${formatMs(round(pass.headers.p50))} ms.`,
          '',
        ]),
    slackTable,
    ...(outcome.warmupAnswered ? [] : ['', 'The warm-up burst was not all answered within 180 s.']),
  ];
  return { lines, checks };
}

function report(
  settings: AnswerSettings,
  available: AvailableDatabases,
  outcomes: readonly DatabaseOutcome[],
  startedAt: Date,
): { markdown: string; checks: Check[] } {
  const sections = outcomes.map((outcome) => databaseSection(outcome, settings));
  const checks = sections.flatMap((section) => section.checks);
  const config = parseConfig({});
  const pglite = outcomes.some((outcome) => outcome.database === 'pglite');
  const lines = [
    '## Answers: web chat and Slack on a 100,000-chunk team (`bench/answer`)',
    '',
    `Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(`bench:${NAME}`, `bench/${NAME}/run.ts`)}\`; took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s.`,
    ...postgresLine(available),
    '',
    ...teamDataDescription(settings.data),
    ...(pglite
      ? [
          `PGlite holds ${formatNumber(settings.data.pgliteScale * 100)} % of those chunk counts: storing them in its one WebAssembly thread would take`,
          'far longer than this benchmark may run.',
        ]
      : []),
    '',
    `The service runs as users run it (\`node dist/src/main.js\`, \`LOG_LEVEL=info\`, so it says when the big team's postings are in memory, which measuring waits for; embeddings on, the extractive answerer,`,
    `\`ANSWER_PASSAGES\` ${config.answering.passages}, \`SEARCH_DENSE_WEIGHT\` ${config.search.denseWeight}). The big team's user asks ${formatNumber(settings.questions)} SciFact test queries in`,
    '`POST /v1/chat/` (each a new chat, with its own `user_context` from `GET /v1/users/me`), after',
    `${settings.warmup} warm-up questions, one client at a time, then ${settings.clients} at once; the stream is read as a client reads NDJSON,`,
    'and the time runs from sending the question to reading the first `{"answer": …}` line (and the `done` line).',
    `The baseline is the search the chat starts with: \`POST /v1/search\` with the same questions and \`top_k\` ${config.answering.passages}.`,
    '',
    `Slack: bursts of ${settings.events} signed \`event_callback\` deliveries of direct messages to the bot (distinct \`event_id\`s, from the`,
    "big team's owner's Slack user, answered with the owner's access after `users.info`, in the workspace the big team's",
    'registration installed the bot into through `chatappCode`), sent at once on',
    `${settings.events} connections; the next burst goes once the worker has posted every answer of the last into the thread at a fake`,
    `Slack Web API server (\`test/fakes/fake-slack-server.ts\`, \`SLACK_API_URL\`), in this process. ${settings.bursts} bursts are measured`,
    "after a warm-up burst of the same size. `all answered after` runs from a burst's start to the last answer posted. The",
    'baseline is a bare fastify app answering `GET /` under the same bursts, in a process of its own.',
    '',
    ...sections.flatMap((section) => [...section.lines, '']),
    `Targets (issue): the first answer line of the web chat after a p50 ≤ ${TARGETS.firstAnswerP50Ms} ms on PostgreSQL (one client at a`,
    `time); Slack events acknowledged with 200 after a p99 ≤ ${TARGETS.slackAckP99Ms} ms under ${settings.events} at once.`,
    '',
    ...verdictLines(checks, available.skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  if (settings.forgetData) {
    await forgetKeptData(progress);
    return;
  }
  const startedAt = new Date();
  const available = await availableDatabases(settings.databases, progress);
  const corpus = loadScifact(settings.datasetDir);
  const uninstall = installCleanupHandlers(60 * 60 * 1000);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcomes: DatabaseOutcome[] = [];
    for (const database of available.databases) {
      outcomes.push(await measureOn(settings, available, database, corpus));
    }
    publishSection(
      NAME,
      report(settings, available, outcomes, startedAt),
      {
        write: settings.write,
        withheld: settings.fromSource ? 'run from source (--from-source), not the build' : undefined,
      },
      progress,
    );
  } finally {
    await runCleanups();
    uninstall();
  }
}

runBenchmark(NAME, main);

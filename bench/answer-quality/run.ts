// `npm run bench:answer-quality` (`npx tsx bench/answer-quality/run.ts`): the quality of the
// answers POST /v1/chat/ gives with the default (extractive) answerer. First real documentation
// (docs-qa: package docs uploaded as files, how-to questions, chains, unanswerables; docs-qa.ts),
// beside the top search hit of the same run. Then indexes the SQuAD 2.0 subset through the API
// (every paragraph a document, one article left out), asks every answerable question, alone and as
// the second turn of a chat, beside a naive baseline computed in the same run; then asks SciFact's
// claims of a third team holding the SciFact corpus. Writes the answer-quality-docs and
// answer-quality sections of docs/benchmarks.md. `--help` lists the settings.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deferCleanup, installCleanupHandlers, runBenchmark, runCleanups } from '../lib/children.js';
import type { Check } from '../lib/databases.js';
import { expectJson } from '../lib/http.js';
import { commandLine, environmentLine, formatNumber, markdownTable, publishSection } from '../lib/report.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type Scifact, type ScifactQuery } from '../lib/scifact.js';
import { mapConcurrently, type SearchResult, searchOnce } from '../lib/search-client.js';
import { buildService, type RunningServer, startService } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { scifactUploads, type UploadDocument, uploadAndWait, uploadBatches } from '../lib/upload.js';
import { type BenchUser, registerUser } from '../lib/users.js';
import { askChat, type ChatAnswer, externalIdOf } from './chat-client.js';
import {
  DEFAULT_DOCS_QA_DIR,
  type DocsQaOutcome,
  docsQaReport,
  loadDocsQa,
  measureDocsQa,
} from './docs-qa.js';
import { baselineSentence, firstSentence, isNotFound, plain } from './measures.js';
import { DEFAULT_SQUAD_DIR, holdsAnswer, loadSquad, type Squad, type SquadQuestion, words } from './squad.js';

const NAME = 'answer-quality';
/** As the service's default `ANSWER_PASSAGES`: what the answerer reads. */
const PASSAGES = 6;
const DEFAULT_LEFT_OUT = 'Sky (United Kingdom)';
/** The issue's targets. */
/**
 * This script's figures for the answerer before the issue-16 work (2026-11-24, same data and
 * reading), printed beside each run's for comparison; they are not measured again.
 */
const BEFORE = {
  first: '62.8 %',
  anywhere: '78.4 %',
  secondTurnFirst: '58.0 %',
  secondTurnAnywhere: '72.2 %',
  meanWords: '46.1',
  notFound: '12.1 %',
  leftOut: '96.3 %',
  claimsCited: '61.9 %',
  claimsFirstCited: '55.1 %',
  claimsNotFound: '24.2 %',
};
const TARGETS = {
  firstSentence: 0.8,
  anywhere: 0.9,
  meanWords: 45,
  leftOutNotFound: 0.9,
  claimsCited: 0.8,
};

const USAGE = `npx tsx bench/answer-quality/run.ts [options]   (npm run bench:answer-quality -- [options])

Uploads the docs-qa set's package documentation, indexes the SQuAD 2.0 subset (one article left out)
and the SciFact corpus through the API, and scores the answers of POST /v1/chat/ to docs-qa's questions,
SQuAD's answerable questions and SciFact's claims.

Options (or the BENCH_* variable in brackets):
  --docs-qa-only     ask only the docs-qa set (writes only its section)
  --no-docs-qa       skip the docs-qa set
  --limit N          ask only N SQuAD questions, spread evenly over the set (BENCH_LIMIT; default all)
  --claims N         ask only the first N SciFact claims; 0 skips SciFact (BENCH_CLAIMS; default all 300)
  --no-follow-up     skip asking each question again as a chat's second turn
  --left-out TITLE   the article left out of the index (BENCH_LEFT_OUT, default "${DEFAULT_LEFT_OUT}")
  --concurrency N    questions in flight at once (BENCH_CONCURRENCY, default 3)
  --keep-data DIR    keep the indexed data in DIR and reuse it on the next run with the same DIR
                     (trials: only the answering changes between runs)
  --dump FILE        write every question's answer and passages as JSON lines into FILE
  --docs-qa DIR      the docs-qa set (BENCH_DOCS_QA_DIR, default ${DEFAULT_DOCS_QA_DIR})
  --squad DIR        the SQuAD subset (BENCH_SQUAD_DIR, default ${DEFAULT_SQUAD_DIR})
  --dataset DIR      the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
${serviceRunUsage(21)}
  -h, --help         this text`;

interface QualitySettings {
  /** Which sets to ask: docs-qa, and SQuAD with SciFact. */
  readonly docsQa: boolean;
  readonly squad: boolean;
  readonly docsQaDir: string;
  readonly limit: number | undefined;
  readonly claims: number | undefined;
  readonly followUp: boolean;
  readonly leftOut: string;
  readonly concurrency: number;
  readonly keepData: string | undefined;
  readonly dump: string | undefined;
  readonly squadDir: string;
  readonly scifactDir: string;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
}

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): QualitySettings {
  const values = parseFlags(
    argv,
    ['limit', 'claims', 'left-out', 'concurrency', 'keep-data', 'dump', 'squad', 'dataset', 'docs-qa'],
    [...SERVICE_RUN_FLAGS, 'no-follow-up', 'docs-qa-only', 'no-docs-qa'],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  const optional = (flag: string) => {
    const value = values[flag];
    return typeof value === 'string' && value.trim() !== '' ? path.resolve(value) : undefined;
  };
  if (values['docs-qa-only'] === true && values['no-docs-qa'] === true) {
    throw new Error(`--docs-qa-only and --no-docs-qa ask for nothing\n\n${USAGE}`);
  }
  return {
    docsQa: values['no-docs-qa'] !== true,
    squad: values['docs-qa-only'] !== true,
    docsQaDir: read.string('docs-qa', 'BENCH_DOCS_QA_DIR', DEFAULT_DOCS_QA_DIR),
    limit: read.optionalNumber('limit', 'BENCH_LIMIT', 1, 100_000),
    claims: read.optionalNumber('claims', 'BENCH_CLAIMS', 0, 100_000),
    followUp: values['no-follow-up'] !== true,
    leftOut: read.string('left-out', 'BENCH_LEFT_OUT', DEFAULT_LEFT_OUT),
    concurrency: read.number('concurrency', 'BENCH_CONCURRENCY', 3, 1, 32),
    keepData: optional('keep-data'),
    dump: optional('dump'),
    squadDir: read.string('squad', 'BENCH_SQUAD_DIR', DEFAULT_SQUAD_DIR),
    scifactDir: read.string('dataset', 'BENCH_SCIFACT_DIR', DEFAULT_SCIFACT_DIR),
    ...read.serviceRun(),
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

/** `count` items spread evenly over `items` (all of them when `count` is undefined or larger). */
function spread<T>(items: readonly T[], count: number | undefined): T[] {
  if (count === undefined || count >= items.length) return [...items];
  return Array.from({ length: count }, (_, index) => items[Math.floor((index * items.length) / count)] as T);
}

// --- what is measured --------------------------------------------------------------------------

interface SquadRecord {
  readonly question: SquadQuestion;
  readonly leftOut: boolean;
  readonly retrieved: readonly SearchResult[];
  readonly alone: ChatAnswer;
  readonly followUp: ChatAnswer | undefined;
  readonly firstTurn: string | undefined;
}

interface ClaimRecord {
  readonly claim: ScifactQuery;
  readonly judged: readonly string[];
  readonly retrieved: readonly SearchResult[];
  readonly answer: ChatAnswer;
}

interface AnswerFigures {
  readonly anywhere: number;
  readonly first: number;
  readonly meanWords: number;
  readonly notFound: number;
}

function answerFigures(
  records: readonly SquadRecord[],
  pick: (record: SquadRecord) => ChatAnswer,
): AnswerFigures {
  let anywhere = 0;
  let first = 0;
  let wordTotal = 0;
  let notFound = 0;
  for (const record of records) {
    const answer = pick(record);
    const text = plain(answer);
    if (holdsAnswer(text, record.question.answers)) anywhere += 1;
    if (holdsAnswer(firstSentence(text), record.question.answers)) first += 1;
    wordTotal += words(text);
    if (isNotFound(answer)) notFound += 1;
  }
  const count = Math.max(1, records.length);
  return {
    anywhere: anywhere / count,
    first: first / count,
    meanWords: wordTotal / count,
    notFound: notFound / count,
  };
}

// --- the run -----------------------------------------------------------------------------------

interface KeptState {
  readonly docsQaToken?: string | undefined;
  readonly squadToken?: string | undefined;
  readonly scifactToken?: string | undefined;
  readonly leftOut: string;
}

async function userOf(baseUrl: string, accessToken: string): Promise<BenchUser> {
  const headers = { authorization: `Bearer ${accessToken}` };
  const me = (await expectJson([200], 'GET', `${baseUrl}/v1/users/me`, undefined, headers)) as Record<
    string,
    unknown
  >;
  return {
    accessToken,
    headers,
    userId: Number(me.id),
    teamId: Number(me.team_id),
    email: String(me.email),
    emailVerified: me.email_verified === true,
    userContext: me,
    chatapp: undefined,
  };
}

async function upload(
  service: RunningServer,
  user: BenchUser,
  documents: readonly UploadDocument[],
  what: string,
) {
  const { bodies, sizes } = uploadBatches(documents, 250);
  progress(`uploading ${formatNumber(documents.length)} ${what} in ${bodies.length} requests`);
  const started = performance.now();
  const outcome = await uploadAndWait(service.url, user.headers, bodies, sizes, {
    inFlight: 2,
    timeoutSeconds: 900,
    alive: () => service.child.process.exitCode === null && service.child.process.signalCode === null,
    progress,
  });
  const notIndexed = outcome.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
  progress(
    `${what}: indexed in ${((performance.now() - started) / 1000).toFixed(1)} s (${notIndexed} not indexed)`,
  );
  for (const job of outcome.jobs) for (const problem of job.problems.slice(0, 3)) progress(problem);
}

/** An unrelated first turn for question `index`: a question of another article. */
function unrelatedQuestion(squad: Squad, question: SquadQuestion, index: number): string {
  const others = squad.questions.filter((other) => other.article !== question.article);
  return (others[(index * 7919) % others.length] as SquadQuestion).question;
}

async function askSquad(
  service: RunningServer,
  user: BenchUser,
  squad: Squad,
  questions: readonly SquadQuestion[],
  settings: QualitySettings,
): Promise<SquadRecord[]> {
  let done = 0;
  return mapConcurrently(questions, settings.concurrency, async (question, index) => {
    const { results } = await searchOnce(service.url, user.headers, {
      query: question.question,
      top_k: PASSAGES,
    });
    const alone = await askChat(service.url, user.headers, question.question);
    let followUp: ChatAnswer | undefined;
    let firstTurn: string | undefined;
    if (settings.followUp) {
      firstTurn = unrelatedQuestion(squad, question, index);
      const first = await askChat(service.url, user.headers, firstTurn);
      followUp = await askChat(service.url, user.headers, question.question, first.chatId);
    }
    done += 1;
    if (done % 100 === 0) progress(`  ${done} of ${questions.length} questions asked`);
    return {
      question,
      leftOut: question.article === settings.leftOut,
      retrieved: results,
      alone,
      followUp,
      firstTurn,
    };
  });
}

async function askClaims(
  service: RunningServer,
  user: BenchUser,
  scifact: Scifact,
  claims: readonly ScifactQuery[],
  concurrency: number,
): Promise<ClaimRecord[]> {
  return mapConcurrently(claims, concurrency, async (claim) => {
    const { results } = await searchOnce(service.url, user.headers, { query: claim.text, top_k: PASSAGES });
    const answer = await askChat(service.url, user.headers, claim.text);
    return {
      claim,
      judged: [...(scifact.judgements.get(claim.id)?.keys() ?? [])],
      retrieved: results,
      answer,
    };
  });
}

interface Outcome {
  readonly docsQa: DocsQaOutcome | undefined;
  readonly squadRecords: readonly SquadRecord[];
  readonly claimRecords: readonly ClaimRecord[];
  readonly questionsInSet: number;
  readonly claimsInSet: number;
  readonly scifactDocuments: number;
  readonly indexedParagraphs: number;
}

/** A team's user: registered (and its data uploaded by `fill`) on the first run, kept on later ones. */
async function teamUser(
  service: RunningServer,
  token: string | undefined,
  slug: string,
  fill: (user: BenchUser) => Promise<void>,
  what: string,
): Promise<{ user: BenchUser; fresh: boolean }> {
  if (token !== undefined) {
    progress(`${what}: kept from an earlier run`);
    return { user: await userOf(service.url, token), fresh: false };
  }
  const user = await registerUser(service.url, slug);
  await fill(user);
  return { user, fresh: true };
}

async function measure(settings: QualitySettings): Promise<Outcome> {
  const squad = settings.squad ? loadSquad(settings.squadDir) : undefined;
  if (squad !== undefined && !squad.articles.includes(settings.leftOut)) {
    throw new Error(`no article "${settings.leftOut}" in the subset (${squad.articles.join(', ')})`);
  }
  const scifact = settings.squad && settings.claims !== 0 ? loadScifact(settings.scifactDir) : undefined;
  const docsQa = settings.docsQa ? loadDocsQa(settings.docsQaDir) : undefined;

  const dataDir = settings.keepData ?? mkdtempSync(path.join(os.tmpdir(), 'bench-answer-quality-'));
  if (settings.keepData === undefined) deferCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  mkdirSync(dataDir, { recursive: true });
  const stateFile = path.join(dataDir, 'bench-answer-quality.json');
  let state: KeptState = existsSync(stateFile)
    ? (JSON.parse(readFileSync(stateFile, 'utf8')) as KeptState)
    : { leftOut: settings.leftOut };
  if (state.squadToken !== undefined && state.leftOut !== settings.leftOut) {
    throw new Error(`${dataDir} was indexed leaving out "${state.leftOut}": use another --keep-data folder`);
  }
  const keep = (changes: Partial<KeptState>) => {
    state = { ...state, ...changes };
    if (settings.keepData !== undefined) writeFileSync(stateFile, JSON.stringify(state));
  };

  progress(`starting the service (${settings.fromSource ? 'from source' : 'built'}, PGlite in ${dataDir})`);
  const service = await startService(
    'service',
    { LOG_LEVEL: 'warn', DATA_DIR: dataDir },
    [],
    settings.fromSource,
  );
  const stop = deferCleanup(() => service.stop());
  try {
    let docsQaOutcome: DocsQaOutcome | undefined;
    if (docsQa !== undefined) {
      const { user, fresh } = await teamUser(
        service,
        state.docsQaToken,
        'answer-quality-docs',
        async () => {},
        'docs-qa files',
      );
      docsQaOutcome = await measureDocsQa(service.url, user, docsQa, {
        concurrency: settings.concurrency,
        upload: fresh,
        progress,
      });
      keep({ docsQaToken: user.accessToken });
    }

    const indexedParagraphs = (squad?.paragraphs ?? []).filter(
      (paragraph) => paragraph.title !== settings.leftOut,
    );
    let squadRecords: SquadRecord[] = [];
    if (squad !== undefined) {
      const { user } = await teamUser(
        service,
        state.squadToken,
        'answer-quality-squad',
        (fresh) =>
          upload(
            service,
            fresh,
            indexedParagraphs.map((paragraph) => ({
              external_id: paragraph.id,
              title: paragraph.title,
              text: paragraph.text,
              metadata: {},
            })),
            'SQuAD paragraphs',
          ),
        'SQuAD paragraphs',
      );
      keep({ squadToken: user.accessToken, leftOut: settings.leftOut });
      const questions = spread(squad.questions, settings.limit);
      progress(
        `asking ${questions.length} SQuAD questions${settings.followUp ? ', alone and as a second turn' : ''}`,
      );
      squadRecords = await askSquad(service, user, squad, questions, settings);
    }
    let claimRecords: ClaimRecord[] = [];
    if (scifact !== undefined) {
      const { user } = await teamUser(
        service,
        state.scifactToken,
        'answer-quality-scifact',
        (fresh) => upload(service, fresh, scifactUploads(scifact.documents), 'SciFact abstracts'),
        'SciFact abstracts',
      );
      keep({ scifactToken: user.accessToken });
      const claims = scifact.queries.slice(0, settings.claims ?? scifact.queries.length);
      progress(`asking ${claims.length} SciFact claims`);
      claimRecords = await askClaims(service, user, scifact, claims, settings.concurrency);
    }
    if (settings.dump !== undefined) {
      writeFileSync(
        settings.dump,
        [
          ...(docsQaOutcome === undefined
            ? []
            : [
                ...docsQaOutcome.singles.map((record) => ({ kind: 'docs-single', ...record })),
                ...docsQaOutcome.chains.map((turns) => ({ kind: 'docs-chain', turns })),
                ...docsQaOutcome.unanswerable.map((record) => ({ kind: 'docs-unanswerable', ...record })),
              ]),
          ...squadRecords.map((record) => ({ kind: 'squad', ...record })),
          ...claimRecords.map((record) => ({ kind: 'claim', ...record })),
        ]
          .map((record) => JSON.stringify(record))
          .join('\n'),
      );
      progress(`wrote ${settings.dump}`);
    }
    return {
      docsQa: docsQaOutcome,
      squadRecords,
      claimRecords,
      questionsInSet: squad?.questions.length ?? 0,
      claimsInSet: scifact?.queries.length ?? 0,
      scifactDocuments: scifact?.documents.length ?? 0,
      indexedParagraphs: indexedParagraphs.length,
    };
  } finally {
    await stop();
  }
}

// --- the report --------------------------------------------------------------------------------

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

function check(
  label: string,
  value: number,
  target: number,
  atMost: boolean,
  format: (value: number) => string,
): Check {
  const met = atMost ? value <= target : value >= target;
  return {
    met,
    text: `${label}: **${met ? 'met' : 'not met'}**: ${format(value)} (target ${atMost ? '≤' : '≥'} ${format(target)})${met ? ' ✓' : ''}`,
  };
}

function report(
  settings: QualitySettings,
  outcome: Outcome,
  startedAt: number,
): { markdown: string; checks: Check[] } {
  const asked = outcome.squadRecords.filter((record) => !record.leftOut);
  const leftOut = outcome.squadRecords.filter((record) => record.leftOut);
  const alone = answerFigures(asked, (record) => record.alone);
  const followUp = settings.followUp
    ? answerFigures(asked, (record) => record.followUp as ChatAnswer)
    : undefined;
  const baseline =
    asked.filter((record) =>
      holdsAnswer(
        baselineSentence(record.question.question, record.retrieved[0]?.text),
        record.question.answers,
      ),
    ).length / Math.max(1, asked.length);
  const retrievedHold =
    asked.filter((record) =>
      holdsAnswer(record.retrieved.map((result) => result.text).join('\n'), record.question.answers),
    ).length / Math.max(1, asked.length);
  const leftOutRefused =
    leftOut.filter((record) => isNotFound(record.alone)).length / Math.max(1, leftOut.length);
  const leftOutRefusedFollowUp = settings.followUp
    ? leftOut.filter((record) => isNotFound(record.followUp as ChatAnswer)).length /
      Math.max(1, leftOut.length)
    : undefined;

  const reachable = outcome.claimRecords.filter((record) =>
    record.retrieved.some((result) => record.judged.includes(result.external_id)),
  );
  const claimsCited =
    reachable.filter((record) =>
      record.answer.sources.some((source) => record.judged.includes(externalIdOf(source))),
    ).length / Math.max(1, reachable.length);
  const claimsNotFound =
    reachable.filter((record) => isNotFound(record.answer)).length / Math.max(1, reachable.length);
  const claimsCitedFirst =
    reachable.filter((record) => {
      const first = record.answer.sources.find(
        (source) => source.citation === firstCitation(record.answer.text),
      );
      return first !== undefined && record.judged.includes(externalIdOf(first));
    }).length / Math.max(1, reachable.length);

  const full =
    settings.limit === undefined && (settings.claims === undefined || settings.claims >= outcome.claimsInSet);
  const lines: string[] = [
    '## Answer quality: the extractive answerer on SQuAD and SciFact (`bench/answer-quality`)',
    '',
    `Run ${new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(NAME === 'answer-quality' ? 'bench:answer-quality' : NAME, 'bench/answer-quality/run.ts')}\`; took ${Math.round((Date.now() - startedAt) / 1000)} s.`,
    '',
    `The built service on PGlite with its defaults (extractive answerer, ${PASSAGES} passages, lexical search).`,
    `The SQuAD 2.0 subset (\`../shared/datasets/squad-subset\`) is uploaded through \`POST /v1/documents\`, every`,
    `paragraph a document titled by its article, except the article "${settings.leftOut}" (${formatNumber(outcome.indexedParagraphs)} paragraphs indexed).`,
    `Each answerable question goes to \`POST /v1/chat/\` in a new chat; it counts as answered where SQuAD's`,
    'normalisation of a gold answer (lower case; punctuation, of any script, and a/an/the replaced by spaces; spaces',
    'collapsed) appears as whole words in the normalised answer (citation markers taken out). "First sentence": the',
    "answer's first line up to the first `.`, `!` or `?` followed by a space (a naive cut, as the issue's figures were read).",
    "The naive baseline, computed in the same run from `POST /v1/search` with the same question: the top hit's",
    `sentence (cut the same way) sharing most distinct words with the question. "Retrieved" checks the ${PASSAGES} passages`,
    'the answerer reads. "Before" is this script\'s run on the answerer before issue 16\'s work (2026-11-24), not re-measured.',
    'As a follow-up, the same question is asked as the second turn of a chat whose first question is from another article.',
    '',
    `${formatNumber(asked.length)} questions about indexed articles${full ? '' : ` (of ${formatNumber(outcome.questionsInSet)}, a trial run)`}, ${formatNumber(leftOut.length)} about the article left out.`,
    '',
    markdownTable(
      [
        'Figure',
        'Before: alone',
        'Asked alone',
        ...(followUp === undefined ? [] : ['Before: 2nd turn', 'As a second turn']),
      ],
      [
        [
          "Gold answer in the answer's first sentence",
          BEFORE.first,
          percent(alone.first),
          ...(followUp === undefined ? [] : [BEFORE.secondTurnFirst, percent(followUp.first)]),
        ],
        [
          'Gold answer anywhere in the answer',
          BEFORE.anywhere,
          percent(alone.anywhere),
          ...(followUp === undefined ? [] : [BEFORE.secondTurnAnywhere, percent(followUp.anywhere)]),
        ],
        [
          "Naive baseline: top hit's sentence sharing most words",
          '',
          percent(baseline),
          ...(followUp === undefined ? [] : ['', '']),
        ],
        [
          `Gold answer somewhere in the ${PASSAGES} passages retrieved`,
          '',
          percent(retrievedHold),
          ...(followUp === undefined ? [] : ['', '']),
        ],
        [
          'Mean answer length (words)',
          BEFORE.meanWords,
          alone.meanWords.toFixed(1),
          ...(followUp === undefined ? [] : ['', followUp.meanWords.toFixed(1)]),
        ],
        [
          'Answered "not found"',
          BEFORE.notFound,
          percent(alone.notFound),
          ...(followUp === undefined ? [] : ['', percent(followUp.notFound)]),
        ],
        [
          'Questions about the article left out: "not found", no citation',
          BEFORE.leftOut,
          percent(leftOutRefused),
          ...(leftOutRefusedFollowUp === undefined ? [] : ['', percent(leftOutRefusedFollowUp)]),
        ],
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
  ];
  const checks: Check[] = [
    check('Gold answer in the first sentence', alone.first, TARGETS.firstSentence, false, percent),
    check('Gold answer anywhere in the answer', alone.anywhere, TARGETS.anywhere, false, percent),
    check(
      'Mean answer length',
      alone.meanWords,
      TARGETS.meanWords,
      true,
      (value) => `${value.toFixed(1)} words`,
    ),
    check(
      'Left-out article answered "not found" with no citation',
      leftOutRefused,
      TARGETS.leftOutNotFound,
      false,
      percent,
    ),
  ];
  if (followUp !== undefined) {
    const met = followUp.first >= alone.first - 0.005 && followUp.anywhere >= alone.anywhere - 0.005;
    checks.push({
      met,
      text: `A follow-up answers at least as well as alone: **${met ? 'met' : 'not met'}**: first sentence ${percent(followUp.first)} vs ${percent(alone.first)}, anywhere ${percent(followUp.anywhere)} vs ${percent(alone.anywhere)}${met ? ' ✓' : ''}`,
    });
  }
  if (outcome.claimRecords.length > 0) {
    lines.push(
      `SciFact (\`../shared/datasets/scifact\`): its ${formatNumber(outcome.scifactDocuments)} abstracts uploaded for a second team; each test claim (a statement, not a`,
      `question) goes to \`POST /v1/chat/\`. Of ${formatNumber(outcome.claimRecords.length)} claims, ${formatNumber(reachable.length)} have a judged abstract among the ${PASSAGES} passages retrieved:`,
      '',
      markdownTable(
        ['Figure (claims whose judged abstract is retrieved)', 'Before', 'Now'],
        [
          ['The answer cites a judged abstract', BEFORE.claimsCited, percent(claimsCited)],
          ['Its first citation is a judged abstract', BEFORE.claimsFirstCited, percent(claimsCitedFirst)],
          ['Answered "not found"', BEFORE.claimsNotFound, percent(claimsNotFound)],
        ],
        ['l', 'r', 'r'],
      ),
      '',
    );
    checks.push(
      check(
        'SciFact claims: the answer cites a judged abstract',
        claimsCited,
        TARGETS.claimsCited,
        false,
        percent,
      ),
    );
  }
  lines.push('Targets (issue 16):', '', ...checks.map((item) => `- ${item.text}`));
  return { markdown: lines.join('\n'), checks };
}

function firstCitation(text: string): number | undefined {
  const match = /\[(\d{1,3})/.exec(text);
  return match === null ? undefined : Number(match[1]);
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const settings = parseSettings(process.argv.slice(2), process.env);
  const uninstall = installCleanupHandlers(3_600_000);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcome = await measure(settings);
    const withheld = settings.fromSource
      ? 'run from source (--from-source), not the build'
      : settings.limit !== undefined || settings.claims !== undefined
        ? 'a trial run (--limit or --claims)'
        : undefined;
    if (outcome.docsQa !== undefined) {
      const header = [
        `Run ${new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
        `Command: \`${commandLine('bench:answer-quality', 'bench/answer-quality/run.ts')}\`.`,
      ];
      publishSection(
        `${NAME}-docs`,
        docsQaReport(outcome.docsQa, header),
        { write: settings.write, withheld: settings.fromSource ? withheld : undefined, after: 'answer' },
        progress,
      );
    }
    if (settings.squad) {
      publishSection(
        NAME,
        report(settings, outcome, startedAt),
        { write: settings.write, withheld, after: `${NAME}-docs` },
        progress,
      );
    }
  } finally {
    await runCleanups();
    uninstall();
  }
}

runBenchmark(NAME, main);

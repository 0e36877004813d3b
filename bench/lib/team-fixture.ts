// The data bench/search and bench/answer measure on: one big team and several smaller ones in
// the same database, registered through the API (the big team's registration also installs the
// Slack bot into a workspace of a fake Slack server) and filled by `storeTeams` (team-corpus.ts).
// The big team has a second member, invited by its owner, who may open a tenth of its documents
// (`bigTeamAccess`). With `keep`, the built database is kept (data-cache.ts) and later runs start
// from a copy.

import { randomBytes } from 'node:crypto';
import {
  type DocumentAccess,
  memberReader,
  normalizeAccess,
  peopleAccess,
  readerMayOpen,
} from '../../src/access.js';
import { openDatabase } from '../../src/db/client.js';
import type { FakeSlackInstallation, FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { dataKey, findCachedData, keepData } from './data-cache.js';
import { type BenchDatabase, createBenchDatabase, type DatabaseName } from './databases.js';
import type { ScifactDocument } from './scifact.js';
import { startService } from './service.js';
import type { Settings } from './settings.js';
import { type StoredTeam, storeTeams, type TeamAccess } from './team-corpus.js';
import { type BenchUser, inviteMember, registerUser } from './users.js';

/**
 * The layout of the stored rows beyond the settings (who is in the big team, whether their
 * addresses are proven, the access lists): part of the kept data's key, so that data kept by an
 * older layout is never reused.
 */
const DATA_LAYOUT = 4;

/** One document in this many of the big team is shared with its member (spread evenly). */
export const MEMBER_SHARE_EVERY = 10;
/** Colleagues (addresses, not members) whose lists with the owner hold the rest of the big team's documents. */
export const COLLEAGUES = 20;

/**
 * Who may open the big team's documents, all indexed by the owner: every tenth (the 6th, 16th, …)
 * the owner and the member; each of the others the owner and one of 20 colleagues in turn. None
 * is team-wide, and every list names the owner, who may open everything; the member, a tenth.
 * The owner is named by account as well as address, as a Drive indexer's lists name whoever
 * indexed them (drive-access.ts): an owner whose address is unproven still opens them.
 */
export function bigTeamAccess(
  owner: BenchUser,
  memberEmail: string,
  colleagues: readonly string[],
): TeamAccess {
  const listed = (...emails: string[]): DocumentAccess =>
    normalizeAccess({ ...peopleAccess(...emails), users: [owner.userId] });
  const shared = listed(owner.email, memberEmail);
  const withColleague = colleagues.map((colleague) => listed(owner.email, colleague));
  return {
    indexedBy: owner.userId,
    listOf: (index) => {
      if (index % MEMBER_SHARE_EVERY === MEMBER_SHARE_EVERY / 2) return shared;
      // The documents before this one that were not the member's, so colleagues take turns.
      const others = index - Math.floor((index + MEMBER_SHARE_EVERY / 2 - 1) / MEMBER_SHARE_EVERY);
      return withColleague[others % withColleague.length] as DocumentAccess;
    },
  };
}

/** The Slack app the benchmarks' services are configured with (against a fake Slack server). */
export const BENCH_SLACK_APP = {
  clientId: '1111111111.9999999999',
  clientSecret: 'bench-slack-client-secret',
  signingSecret: 'bench-slack-signing-secret-5b0f2c',
  appId: 'A0BENCHBOT',
  workspace: 'T0BENCH0001',
} as const;

/** The service's Slack settings for a fake Slack server. */
export function slackServiceEnv(slack: FakeSlackServer): Record<string, string> {
  return {
    SLACK_CLIENT_ID: BENCH_SLACK_APP.clientId,
    SLACK_CLIENT_SECRET: BENCH_SLACK_APP.clientSecret,
    SLACK_SIGNING_SECRET: BENCH_SLACK_APP.signingSecret,
    SLACK_API_URL: slack.url,
  };
}

/** How big the teams are: shared by the benchmarks that build them. */
export interface TeamDataSettings {
  readonly chunks: number;
  readonly teams: number;
  readonly teamChunks: number;
  /** PGlite gets this share of the chunk counts. */
  readonly pgliteScale: number;
  readonly abstractsPerDocument: number;
  readonly dimensions: number;
  /** Keep the built data for later runs, and start from kept data when there is some. */
  readonly keep: boolean;
}

export const TEAM_DATA_FLAGS = [
  'chunks',
  'teams',
  'team-chunks',
  'pglite-scale',
  'abstracts-per-document',
  'dimensions',
] as const;

export const TEAM_DATA_BOOLEAN_FLAGS = ['keep-data'] as const;

export const TEAM_DATA_USAGE = `  --chunks N              chunks of the measured team (BENCH_CHUNKS, default 100000)
  --teams N               other teams in the database (BENCH_TEAMS, default 9)
  --team-chunks N         chunks of each other team (BENCH_TEAM_CHUNKS, default 5000)
  --pglite-scale F        PGlite gets this share of those chunk counts (BENCH_PGLITE_SCALE, default 0.1)
  --abstracts-per-document N  abstracts a stored document holds, as sections (BENCH_ABSTRACTS, default 10)
  --dimensions N          vector length (BENCH_DIMENSIONS, default 384)
  --keep-data             keep the built data (a template database bench_data_…, a folder under
                          node_modules/.cache/bench-data) and start later runs, of bench/search and
                          bench/answer alike, from a copy of it (BENCH_KEEP_DATA=1); remove it all
                          with npx tsx bench/search/run.ts --forget-data`;

export function readTeamDataSettings(read: Settings): TeamDataSettings {
  return {
    chunks: read.number('chunks', 'BENCH_CHUNKS', 100_000, 10, 10_000_000),
    teams: read.number('teams', 'BENCH_TEAMS', 9, 0, 1000),
    teamChunks: read.number('team-chunks', 'BENCH_TEAM_CHUNKS', 5_000, 1, 10_000_000),
    pgliteScale: read.number('pglite-scale', 'BENCH_PGLITE_SCALE', 0.1, 0.001, 1, false),
    abstractsPerDocument: read.number('abstracts-per-document', 'BENCH_ABSTRACTS', 10, 1, 100),
    dimensions: read.number('dimensions', 'BENCH_DIMENSIONS', 384, 2, 2000),
    keep: read.enabled('keep-data', 'BENCH_KEEP_DATA'),
  };
}

/** The chunk counts for one database: PGlite's scaled down. */
export function teamSizes(
  data: TeamDataSettings,
  database: DatabaseName,
): { bigChunks: number; otherChunks: number } {
  const scale = database === 'pglite' ? data.pgliteScale : 1;
  return {
    bigChunks: Math.max(1, Math.round(data.chunks * scale)),
    otherChunks: Math.max(1, Math.round(data.teamChunks * scale)),
  };
}

export interface TeamFixture {
  /** The big team's owner, who indexed its documents and may open them all. */
  readonly big: BenchUser;
  /** A member of the big team (invited by its owner) who may open a tenth of its documents. */
  readonly member: BenchUser;
  readonly others: readonly BenchUser[];
  /** The Slack workspace the big team's registration installed the bot into. */
  readonly installation: FakeSlackInstallation;
  readonly stored: readonly StoredTeam[];
  readonly loadSeconds: number;
  readonly indexSeconds: number;
}

export interface TeamDataOptions {
  readonly name: DatabaseName;
  /** Names the run's database (`bench_search_…`). */
  readonly prefix: string;
  readonly adminUrl: string;
  readonly data: TeamDataSettings;
  readonly corpus: readonly ScifactDocument[];
  /** The stored vectors' model id (as the service will name it). */
  readonly embeddingModel: string;
  /** The fake Slack server this run's services talk to. */
  readonly slack: FakeSlackServer;
  readonly fromSource: boolean;
  readonly progress: (message: string) => void;
}

export interface TeamData {
  readonly database: BenchDatabase;
  readonly fixture: TeamFixture;
  /** Copied from data kept by an earlier run. */
  readonly reused: boolean;
}

/**
 * A fresh database holding the teams: built here (registration through a briefly started
 * service, then `storeTeams` from this process), or, with `keep` and data kept before, copied.
 * The caller starts the service it measures and releases the database.
 */
export async function prepareTeamData(options: TeamDataOptions): Promise<TeamData> {
  const { name, data, progress } = options;
  options.slack.registerApp({
    clientId: BENCH_SLACK_APP.clientId,
    clientSecret: BENCH_SLACK_APP.clientSecret,
    appId: BENCH_SLACK_APP.appId,
  });
  const sizes = teamSizes(data, name);
  const key = dataKey(name, {
    layout: DATA_LAYOUT,
    ...sizes,
    teams: data.teams,
    abstractsPerDocument: data.abstractsPerDocument,
    dimensions: data.dimensions,
    model: options.embeddingModel,
    documents: options.corpus.length,
  });
  if (data.keep) {
    const kept = await findCachedData<TeamFixture>(name, key, options.adminUrl);
    if (kept !== undefined) {
      progress(`starting from the data kept in ${kept.template}`);
      const database = await createBenchDatabase(name, options.prefix, options.adminUrl, progress, {
        template: kept.template,
        ...(kept.encryptionKey === undefined ? {} : { encryptionKey: kept.encryptionKey }),
      });
      await adoptInstallation(options.slack, kept.details.installation);
      return { database, fixture: kept.details, reused: true };
    }
  }
  const database = await createBenchDatabase(name, options.prefix, options.adminUrl, progress);
  try {
    const fixture = await buildTeamFixture(database, sizes, options);
    if (data.keep) {
      await keepData(
        name,
        key,
        options.adminUrl,
        { postgresName: database.postgres?.name, dataDir: database.env.DATA_DIR },
        database.env.ENCRYPTION_KEY,
        fixture,
      );
      progress(`kept the data for later runs (--keep-data): key ${key}`);
    }
    return { database, fixture, reused: false };
  } catch (error) {
    await database.release();
    throw error;
  }
}

/** Makes a new fake Slack server honour a bot token an earlier one issued (kept data). */
async function adoptInstallation(slack: FakeSlackServer, installation: FakeSlackInstallation): Promise<void> {
  const code = `bench-adopt-${Date.now()}`;
  slack.issueCode(code, BENCH_SLACK_APP.clientId, installation);
  const response = await fetch(`${slack.url}oauth.v2.access`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: BENCH_SLACK_APP.clientId,
      client_secret: BENCH_SLACK_APP.clientSecret,
      code,
    }),
  });
  const answer = (await response.json()) as { ok?: boolean; error?: string };
  if (answer.ok !== true)
    throw new Error(`the fake Slack server refused the kept installation: ${answer.error}`);
  slack.clearRecords();
}

/**
 * Registers the teams' users through a briefly started service (which also migrates the
 * database), the big team's with a Slack `chatappCode`, stops it, then stores every team's
 * chunks from this process and builds the indexes.
 */
async function buildTeamFixture(
  database: BenchDatabase,
  sizes: { bigChunks: number; otherChunks: number },
  options: TeamDataOptions,
): Promise<TeamFixture> {
  const { progress, data } = options;
  progress('registering the teams');
  const code = `bench-install-${Date.now()}`;
  const issued = options.slack.issueCode(code, BENCH_SLACK_APP.clientId, {
    teamId: BENCH_SLACK_APP.workspace,
    teamName: 'Benchmark workspace',
  });
  // The member registers through the trusted front end: only a proven address opens what is shared with it.
  const registrationSecret = randomBytes(24).toString('hex');
  const service = await startService(
    `service (${database.name}, registration)`,
    {
      LOG_LEVEL: 'warn',
      REGISTRATION_SECRET: registrationSecret,
      ...database.env,
      ...slackServiceEnv(options.slack),
    },
    [],
    options.fromSource,
  );
  let big: BenchUser;
  let member: BenchUser;
  const others: BenchUser[] = [];
  const slug = `${options.prefix}-${database.name}`;
  try {
    big = await registerUser(service.url, `${slug}-big`, { chatappCode: code });
    if (big.chatapp?.status !== 'installed') {
      throw new Error(`the Slack installation failed: ${JSON.stringify(big.chatapp)}`);
    }
    member = await inviteMember(service.url, big, `${slug}-member`, registrationSecret);
    if (!member.emailVerified) throw new Error('the invited member registered without a proven address');
    for (let index = 1; index <= data.teams; index += 1) {
      others.push(await registerUser(service.url, `${slug}-team-${index}`));
    }
  } finally {
    await service.stop();
  }
  options.slack.clearRecords();
  const colleagues = Array.from(
    { length: COLLEAGUES },
    (_, index) => `colleague-${String(index + 1).padStart(2, '0')}@example.com`,
  );
  const teams = [
    {
      teamId: big.teamId,
      chunks: sizes.bigChunks,
      seed: 1,
      access: bigTeamAccess(big, member.email, colleagues),
    },
    ...others.map((user, index) => ({ teamId: user.teamId, chunks: sizes.otherChunks, seed: index + 2 })),
  ];
  const count = (value: number) => value.toLocaleString('en-US');
  progress(
    `storing ${count(teams.reduce((sum, team) => sum + team.chunks, 0))} chunks (${count(sizes.bigChunks)} in the big team, ${data.teams} × ${count(sizes.otherChunks)}) with ${data.dimensions}-dimension vectors`,
  );
  const postgres = database.location.kind === 'postgres';
  const concurrency = postgres ? 3 : 1;
  const handle = await openDatabase(
    database.location.kind === 'postgres'
      ? {
          ...database.location,
          // The loader's own sessions: no wait for each commit's flush (a crash loses the run anyway).
          url: withSessionOptions(database.location.url, '-c synchronous_commit=off'),
          poolSize: concurrency + 1,
        }
      : database.location,
  );
  try {
    const result = await storeTeams(handle.sql, options.corpus, teams, {
      abstractsPerDocument: data.abstractsPerDocument,
      embedding: { model: options.embeddingModel, dimensions: data.dimensions },
      concurrency,
      documentsPerTransaction: Math.max(1, Math.round(40 / data.abstractsPerDocument)),
      maintenanceWorkMem: postgres ? '1GB' : '256MB',
      progress,
    });
    progress(
      `stored in ${result.loadSeconds.toFixed(0)} s; indexes built and tables vacuumed in ${result.indexSeconds.toFixed(0)} s`,
    );
    // The owner's figures measure searches over every document: refuse data the owner cannot open.
    const [bigTeam] = result.teams;
    const ownerOpens = bigTeam === undefined ? undefined : readableShare(bigTeam, big);
    if (bigTeam === undefined || ownerOpens?.documents !== bigTeam.documents) {
      throw new Error(
        `the big team's owner may open ${ownerOpens?.documents ?? 0} of its ${bigTeam?.documents ?? 0} documents, not all`,
      );
    }
    return {
      big,
      member,
      others,
      installation: issued,
      stored: result.teams,
      loadSeconds: result.loadSeconds,
      indexSeconds: result.indexSeconds,
    };
  } finally {
    await handle.close();
  }
}

/** The URL with libpq `options` (`-c name=value` session settings). */
function withSessionOptions(url: string, options: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', options);
  return parsed.toString();
}

/** The sentences a report gives about the data. */
export function teamDataDescription(data: TeamDataSettings): string[] {
  return [
    'The measured team holds SciFact abstracts repeated with variations (each pass over the corpus in a new',
    `order, sentences shuffled, a numbered reference appended; ${data.abstractsPerDocument} abstracts to a document, one section each),`,
    `chunked by the service's chunker; ${data.teams} other teams in the same database hold other variations. Rows are written`,
    "by the service's own storage function (`replaceDocument`: chunks, lexical postings, vectors) from the",
    "benchmark's process; then the indexes are built once (the HNSW index as the worker names it) and the tables",
    'vacuumed and analysed, as autovacuum would after such inserts. Users and teams are registered through the API.',
    "The measured team's owner is recorded as having indexed every document, and no document is team-wide: one",
    `document in ${MEMBER_SHARE_EVERY} (the ${ordinal(MEMBER_SHARE_EVERY / 2 + 1)}, ${ordinal(MEMBER_SHARE_EVERY / 2 + 1 + MEMBER_SHARE_EVERY)}, …) is shared with the owner and a second member of the team, whom the owner`,
    `invited (\`POST /v1/teams/invitations\`, then registration with its code); each of the others with the owner and one`,
    `of ${COLLEAGUES} colleagues in turn (addresses outside the team). That makes ${COLLEAGUES + 1} access lists, each naming the owner, who may`,
    `open every document, while the member may open ${Math.round(100 / MEMBER_SHARE_EVERY)} % of them. The other teams' documents are team-wide.`,
  ];
}

/** 1st, 2nd, 3rd, 4th, …, 11th, …, 21st. */
function ordinal(value: number): string {
  const suffixes = ['th', 'st', 'nd', 'rd'];
  const tens = value % 100;
  return `${value}${suffixes[(tens - 20) % 10] ?? suffixes[tens] ?? 'th'}`;
}

/** What `reader` may open of a stored team: documents and chunks, and in how many access lists. */
export function readableShare(
  team: StoredTeam,
  reader: BenchUser,
): { documents: number; chunks: number; lists: number } {
  const readable = team.lists.filter((list) =>
    readerMayOpen(
      memberReader({
        teamId: team.teamId,
        userId: reader.userId,
        email: reader.email,
        emailVerified: reader.emailVerified,
      }),
      list.access,
    ),
  );
  return {
    documents: readable.reduce((sum, list) => sum + list.documents, 0),
    chunks: readable.reduce((sum, list) => sum + list.chunks, 0),
    lists: readable.length,
  };
}

/** One line on the stored data of one database. */
export function storedDataLine(teamData: TeamData, dimensions: number, sizeMiB: number): string {
  const { fixture } = teamData;
  const [big, ...others] = fixture.stored;
  const total = fixture.stored.reduce((sum, team) => sum + team.chunks, 0);
  const count = (value: number) => value.toLocaleString('en-US');
  const built = `stored in ${Math.round(fixture.loadSeconds)} s; indexes built and tables vacuumed in ${Math.round(fixture.indexSeconds)} s`;
  const shared = big === undefined ? undefined : readableShare(big, fixture.member);
  const lists =
    shared === undefined || big === undefined
      ? ''
      : ` in ${count(big.lists.length)} access lists; the member may open ${count(shared.documents)} of them, ${count(shared.chunks)} chunks, ${((100 * shared.chunks) / Math.max(1, big.chunks)).toFixed(1)} %`;
  return `${count(big?.chunks ?? 0)} chunks in the measured team (${count(big?.documents ?? 0)} documents${lists})${
    others.length === 0
      ? ''
      : `, and ${others.length} other teams of ${count(others[0]?.chunks ?? 0)} chunks each`
  }: ${count(total)} chunks with ${dimensions}-dimension vectors, ${count(Math.round(sizeMiB))} MiB on disk; ${
    teamData.reused ? `copied from data kept by an earlier run (which ${built})` : built
  }.`;
}

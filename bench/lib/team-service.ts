// What bench/search and bench/answer measure on, set up once: the team data (team-fixture.ts) with
// vectors from the fake OpenAI embedding server, a fake Slack, and the service started on it with
// embeddings on. Everything is stopped again after the measurements, whatever they throw.

import { OpenAiEmbeddingModel } from '../../src/adapters/embeddings/openai-embedding-model.js';
import { FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { deferCleanup } from './children.js';
import {
  type AvailableDatabases,
  type BenchDatabase,
  DATABASE_LABEL,
  type DatabaseName,
  databaseSizeMiB,
} from './databases.js';
import { startFakeOpenAiProcess } from './fake-openai-process.js';
import { formatNumber } from './report.js';
import type { ScifactDocument } from './scifact.js';
import { searchOnce } from './search-client.js';
import { postingsInMemory, type RunningServer, startService } from './service.js';
import { sleep } from './stats.js';
import { prepareTeamData, slackServiceEnv, type TeamData, type TeamDataSettings } from './team-fixture.js';

/** The model name the service asks the fake embedding server for. */
const EMBEDDING_MODEL = 'bench-embedding';

export interface TeamServiceOptions {
  /** The benchmark's name: it names the run's database (`bench_<benchmark>_…`). */
  readonly benchmark: string;
  readonly database: DatabaseName;
  readonly available: AvailableDatabases;
  /** The benchmark's settings: how much data, and whether the service runs from source. */
  readonly settings: { readonly data: TeamDataSettings; readonly fromSource: boolean };
  readonly corpus: readonly ScifactDocument[];
  /** Also configures the service's Slack app against the fake Slack (for Slack events). */
  readonly slackApp: boolean;
  readonly log: (message: string) => void;
}

/** The running setup a benchmark measures. */
export interface TeamService {
  readonly teamData: TeamData;
  readonly database: BenchDatabase;
  readonly sizeMiB: number;
  /** May be stopped before the end (stopping it again then does nothing). */
  readonly service: RunningServer;
  /** Where the service posts Slack answers. */
  readonly slack: FakeSlackServer;
  /** The stored vectors' model id, as the service names it. */
  readonly embeddingModel: string;
}

/** Prepares the team data, starts the service on it, runs `measure`, then stops and releases all. */
export async function withTeamService<T>(
  options: TeamServiceOptions,
  measure: (team: TeamService) => Promise<T>,
): Promise<T> {
  const { log, settings } = options;
  const label = DATABASE_LABEL[options.database];
  const fake = await startFakeOpenAiProcess(settings.data.dimensions);
  const slack = await FakeSlackServer.start();
  const closeSlack = deferCleanup(() => slack.close());
  const embeddingModel = new OpenAiEmbeddingModel({ baseUrl: fake.baseUrl, model: EMBEDDING_MODEL }).id;
  let service: RunningServer | undefined;
  let database: BenchDatabase | undefined;
  try {
    const teamData = await prepareTeamData({
      name: options.database,
      prefix: `bench_${options.benchmark}`,
      adminUrl: options.available.adminUrl,
      data: settings.data,
      corpus: options.corpus,
      embeddingModel,
      slack,
      fromSource: settings.fromSource,
      progress: log,
    });
    database = teamData.database;
    const sizeMiB = await databaseSizeMiB(database);
    log(`database size ${formatNumber(sizeMiB)} MiB`);

    log(`starting the service with embeddings on${options.slackApp ? ' and the Slack app configured' : ''}`);
    service = await startService(
      `service (${label})`,
      {
        // info: the service says when the big team's postings are in memory (every request is logged too).
        LOG_LEVEL: 'info',
        ...database.env,
        ...(options.slackApp ? slackServiceEnv(slack) : {}),
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_BASE_URL: fake.baseUrl,
        EMBEDDING_MODEL,
      },
      [],
      settings.fromSource,
    );
    // The worker probes the model and looks for chunks without vectors at start: let it finish.
    await sleep(3_000);
    const big = teamData.fixture.big;
    const running = service;
    log("waiting for the big team's postings to load into the service's memory");
    await postingsInMemory(running, big.teamId, () =>
      searchOnce(running.url, big.headers, { query: 'warm', top_k: 1, mode: 'lexical' }),
    );
    return await measure({ teamData, database, sizeMiB, service, slack, embeddingModel });
  } finally {
    await service?.stop();
    await fake.stop();
    await closeSlack();
    await database?.release();
  }
}

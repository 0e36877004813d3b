import { installCleanupHandlers, runCleanups } from './children.js';
import { type AvailableDatabases, availableDatabases, type DatabaseName } from './databases.js';
import { publishSection } from './report.js';
import { loadScifact, type ScifactQuery } from './scifact.js';
import { buildService } from './service.js';

/** What every SciFact-on-the-running-service benchmark's settings hold (bench/mcp, bench/search-load). */
export interface ScifactBenchSettings {
  readonly databases: readonly DatabaseName[];
  readonly queries: number;
  readonly datasetDir: string;
  readonly cpuProfileDir: string | undefined;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
}

/**
 * The outline such a benchmark shares: the databases that answer, the SciFact corpus and its
 * first `queries` test queries, the build, `measure` on each database in turn, and the section
 * `report` makes, published after `after` (not written when profiling or running from source).
 */
export async function runScifactBench<Settings extends ScifactBenchSettings, Outcome>(bench: {
  readonly name: string;
  readonly after: string;
  readonly settings: Settings;
  readonly progress: (line: string) => void;
  measure(
    available: AvailableDatabases,
    database: DatabaseName,
    corpus: ReturnType<typeof loadScifact>,
    queries: readonly ScifactQuery[],
  ): Promise<Outcome>;
  report(
    available: AvailableDatabases,
    outcomes: readonly Outcome[],
    startedAt: Date,
  ): { markdown: string; checks: readonly { readonly met: boolean }[] };
}): Promise<void> {
  const { settings, progress } = bench;
  const startedAt = new Date();
  const available = await availableDatabases(settings.databases, progress);
  const corpus = loadScifact(settings.datasetDir);
  const queries = corpus.queries.slice(0, settings.queries);
  const uninstall = installCleanupHandlers(30 * 60 * 1000);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcomes: Outcome[] = [];
    for (const database of available.databases) {
      outcomes.push(await bench.measure(available, database, corpus, queries));
    }
    const withheld =
      settings.cpuProfileDir !== undefined
        ? `CPU profiles in ${settings.cpuProfileDir} (profiling slows the service)`
        : settings.fromSource
          ? 'run from source (--from-source), not the build'
          : undefined;
    publishSection(
      bench.name,
      bench.report(available, outcomes, startedAt),
      { write: settings.write, withheld, after: bench.after },
      progress,
    );
  } finally {
    await runCleanups();
    uninstall();
  }
}

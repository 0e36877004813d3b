import type { Reader } from '../../access.js';
import {
  type LexicalSync,
  readChunkPostings,
  readLexicalSnapshot,
  readLexicalSync,
  readTeamChunkIds,
} from '../../db/repositories/lexical-changes.js';
import {
  analyzeTexts,
  type ChunkHitRow,
  type RankedChunk,
  readTeamHitRows,
} from '../../db/repositories/search.js';
import type { SqlConnection, SqlExecutor } from '../../db/sql-connection.js';
import { searchHitOf, type UnscoredHit, unscoredHitOf } from '../search-hit.js';
import type { PreparedSearch, SearchHit } from '../search-types.js';
import { PROBE_WORDS } from './english-words.js';
import { EventLoopTurns } from './event-loop-turns.js';
import { HitCache } from './hit-cache.js';
import { byCodeUnit, QueryAnalyses, sameMembers } from './query-analyses.js';
import { type LexicalIndexQuery, TeamLexicalIndex } from './team-lexical-index.js';

/**
 * The longest the changes a sync read are applied in one go before the event loop turns: a big
 * file's batch of a few hundred chunks held it 10 to 30 ms, and every request waited (a CPU
 * profile of bench/indexing's big file on PostgreSQL, searched every 250 ms).
 */
const APPLY_SLICE_MS = 2;

/** Where loads that fail or do not fit are told. */
export interface LexicalIndexLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface TeamLexicalIndexesSettings {
  /** What the teams' postings may take in memory together; 0 keeps every search in the database. */
  readonly memoryBytes: number;
  /**
   * A team's postings not brought up to date for this long are reloaded instead: the change rows
   * they would need may have been deleted (`LEXICAL_CHANGE_RETENTION_MS` is four times this).
   */
  readonly reloadAfterMs: number;
  /** After a failed or refused load, how long the team is searched in the database before a retry. */
  readonly retryAfterMs: number;
  /**
   * While a team's postings are being written and searched (a sync applied changes, and a search
   * ranked, less than `followForMs` ago), they are brought up to date in the background every
   * `followEveryMs` too, so that a search finds little left to read: without it, while a large file
   * is indexed, every search read the writer's last batch (200 to 400 chunks) before it could rank.
   * Where `changeMarks` tell of each change (`onChange`), a change heard of a team searched less
   * than `followForMs` ago is read as it is heard instead, at most one sync per `followEveryMs`.
   * Absent or 0: only searches do.
   */
  readonly followEveryMs?: number;
  readonly followForMs?: number;
  /**
   * Where this process hears of teams' changes without a statement (on PostgreSQL, a
   * `SearchFollower`); absent: only PGlite's count of writes spares statements.
   */
  readonly changeMarks?: ChangeMarks;
}

/**
 * Tells, without a statement, whether a team may have changed: the same mark before a sync's
 * statement was sent and now means that no change to the team committed after that statement's
 * snapshot has been reported done to anyone (on PostgreSQL, `writesSearchable` waits for the
 * followers before a write is reported done); undefined when it cannot tell.
 */
export interface ChangeMarks {
  mark(teamId: number): string | undefined;
  /**
   * Whether a sync sent at mark `synced` read every change of the team that may have been reported
   * done, though the mark moved since (a change heard that no barrier has passed yet).
   */
  covers?(teamId: number, synced: string): boolean;
  /** Calls `listener` with the team of each change heard, as it is heard. */
  onChange?(listener: (teamId: number) => void): void;
}

/**
 * How a team's postings stand against its change mark: `current` when nothing was heard since the
 * last sync; `covering` when changes were, but none that may have been reported done (a search
 * may rank without them while a sync reads them); `behind` otherwise (a search syncs first).
 */
type Freshness = 'current' | 'covering' | 'behind';

/** Runs `run` after `delayMs` (a timer that does not keep the process alive). */
export type Scheduler = (run: () => void, delayMs: number) => void;

const unrefTimeout: Scheduler = (run, delayMs) => {
  setTimeout(run, delayMs).unref();
};

/**
 * A search the in-memory postings can answer: BM25 without phrases, of the query's text, among
 * what the reader may open (their access lists are read with the changes, in one statement).
 */
export interface MemoryLexicalQuery extends Omit<LexicalIndexQuery, 'terms' | 'accessListIds'> {
  readonly reader: Reader;
  readonly text: string;
  /** The sync `prepare` began for this request, if it did. */
  readonly prepared?: PreparedSearch | undefined;
}

/** The ranking, and the access lists it was filtered by (the reader's, read with the changes). */
export interface MemoryRanking {
  readonly chunks: RankedChunk[];
  readonly accessListIds: readonly number[];
}

/** The message logged (at info) once a team's postings are in memory; benchmarks wait for it. */
export const MEMORY_INDEX_LOADED = "a team's postings are loaded into memory: BM25 ranks there";

/** The message logged (at info) when a team's postings do not fit in the memory allowed. */
export const MEMORY_INDEX_REFUSED =
  "a team's postings do not fit in the memory allowed (SEARCH_MEMORY_INDEX_MB): BM25 ranks in the database";

/** Logged (at info) when no stemmer variant analyses the probe words as the database does. */
const STEMMER_REFUSED =
  "the database's English analysis is not one this process knows: it analyses every new query word";

/** Logged when a word the database analysed was analysed otherwise here: new words go to the database from then on. */
const STEMMER_REFUTED =
  'a query word was stemmed otherwise than the database stems it: the database analyses new query words from now on';

/** Chunks whose postings one statement of a load reads. */
const LOAD_BATCH_CHUNKS = 500;

/** A team's search hits kept in memory: at most this, and at most an eighth of the memory allowed. */
const MAX_HIT_CACHE_BYTES = 32 * 1024 * 1024;

/** A load reads hits into a team's cache until they take this share of it (the rest: what searches read). */
const HIT_CACHE_WARM_SHARE = 0.9;

/** Readers' access lists a team keeps (`LoadedTeam.readers`). */
const MAX_READERS = 1024;

/** Query words whose lexemes this process keeps (`QueryAnalyses`): a few megabytes at most. */
const MAX_QUERY_WORDS = 50_000;

/** What a sync read besides the changes: the query's lexemes and the reader's access lists. */
type Reading = Pick<LexicalSync, 'lexemes' | 'accessListIds'>;

interface LoadedTeam {
  readonly index: TeamLexicalIndex;
  /** The snapshot the postings are current as of. */
  snapshot: string;
  /** When they were last brought up to date (this process's clock). */
  syncedAt: number;
  lastUsedAt: number;
  /** The sync under way: syncs of a team run one after another, so snapshots only move forward. */
  syncing: Promise<unknown>;
  /** Hits recent searches read, dropped as their chunks change. */
  readonly hits: HitCache;
  /** Counts syncs that applied changes: hits read across one are not kept (they may predate it). */
  changes: number;
  /** When a sync last applied changes (this process's clock). */
  changedAt: number;
  /** Whose access lists background syncs read (the last reader who searched, or whose sync applied changes). */
  follower: Reader | undefined;
  /** Whether a background sync is scheduled. */
  followScheduled: boolean;
  /** Whether a sync of changes heard is scheduled, and when the last one began (this process's clock). */
  wakeScheduled: boolean;
  wokeAt: number;
  /**
   * The team's change mark read before the last sync was sent: on PGlite, where this process is
   * the database's only client, its count of writes (`localWrites`); on PostgreSQL, what its
   * `ChangeMarks` heard, if they can tell. While the mark stays the same nothing has changed since,
   * and a search whose reader's lists a sync already read (`readers`), of words searched before
   * (`QueryAnalyses`), needs no statement.
   */
  syncedMark: number | string | undefined;
  /**
   * By reader, the access lists the last syncs read. Emptied when the mark moves, so that they are
   * what is true while it stays; without a mark, what the next sync is expected to read.
   */
  readonly readers: Map<string, readonly number[]>;
}

/** A team that is loading, or whose load failed or did not fit (searched in the database until `retryAt`). */
interface UnloadedTeam {
  readonly loading?: Promise<void>;
  readonly retryAt: number;
}

/**
 * Teams' lexical postings held in this process (one `TeamLexicalIndex` each), so that BM25 ranks
 * in memory instead of in a statement. PostgreSQL stays the source of truth: a team is loaded from
 * `chunk_terms` in the background the first time it is searched (the database answers meanwhile),
 * and before every search the postings are brought up to date by a statement that finds whether
 * the team changed since the last one and analyses the query, and, only when it did, one that reads
 * the chunks changed (`lexical_changes`, filled by triggers in the writers' transactions); none
 * while the team's change mark stays (`ChangeMarks`: on PGlite while this process wrote nothing, on
 * PostgreSQL while its follower heard no change of the team, or none a barrier passed: those it
 * heard are read in the background meanwhile). A search therefore sees everything committed before
 * it began (with a follower: every write reported done before it began), in every process, and a
 * restarted process simply loads again. Teams are kept within
 * `memoryBytes`, the least recently searched given up first; a team that cannot fit is searched
 * in the database.
 */
export class TeamLexicalIndexes {
  private readonly loaded = new Map<number, LoadedTeam>();
  private readonly unloaded = new Map<number, UnloadedTeam>();
  private readonly analyses = new QueryAnalyses(MAX_QUERY_WORDS);
  private readonly turns = new EventLoopTurns();
  /**
   * Whose lists each prepared sync read, and the team it brought up to date: one loaded again since
   * is not (its own sync runs).
   */
  private readonly preparedFor = new WeakMap<PreparedSearch, { team: LoadedTeam; readerKey: string }>();

  constructor(
    private readonly sql: SqlExecutor & Pick<SqlConnection, 'localWrites'>,
    private readonly settings: TeamLexicalIndexesSettings,
    private readonly logger?: LexicalIndexLogger,
    private readonly now: () => number = () => performance.now(),
    private readonly schedule: Scheduler = unrefTimeout,
  ) {
    // A change heard of a team being searched is read as it is heard (`wake`), so that a search
    // finds it read instead of reading the writer's batch itself.
    settings.changeMarks?.onChange?.((teamId) => {
      const team = this.loaded.get(teamId);
      if (team !== undefined && this.now() - team.lastUsedAt <= (settings.followForMs ?? 0)) {
        this.wake(teamId, team);
      }
    });
  }

  /**
   * Begins the reader's team's sync as their search request arrives, before its text is read, where
   * a search needs a statement anyway (PostgreSQL) and the team is in memory; undefined otherwise.
   * `rank` uses it when this process knows the query's lexemes (else it syncs with the text).
   */
  prepare(reader: Reader): PreparedSearch | undefined {
    if (this.settings.memoryBytes <= 0 || this.sql.localWrites !== undefined) return undefined;
    const team = this.loaded.get(reader.teamId);
    if (team === undefined || this.now() - team.syncedAt > this.settings.reloadAfterMs) return undefined;
    // Nothing reported done since the last sync, and the reader's lists known: the search may
    // need no statement.
    if (this.freshness(reader.teamId, team) !== 'behind' && team.readers.has(readerKeyOf(reader))) {
      return undefined;
    }
    const reading = this.sync(team, reader, '', []);
    const prepared = {
      // A request that never ranks (refused, or a phrase search) leaves it unread: no rejection escapes.
      accessListIds: reading.then(
        (read) => read?.accessListIds,
        () => undefined,
      ),
    };
    this.preparedFor.set(prepared, { team, readerKey: readerKeyOf(reader) });
    return prepared;
  }

  /**
   * The best `limit` chunks by BM25 from the team's postings in memory, brought up to date first;
   * undefined when they are not in memory (loading starts, if it may): the caller asks the database.
   */
  async rank(query: MemoryLexicalQuery): Promise<MemoryRanking | undefined> {
    if (this.settings.memoryBytes <= 0) return undefined;
    const teamId = query.reader.teamId;
    const team = this.loaded.get(teamId);
    if (team === undefined || this.now() - team.syncedAt > this.settings.reloadAfterMs) {
      if (team !== undefined) this.loaded.delete(teamId);
      this.startLoad(teamId);
      return undefined;
    }
    team.lastUsedAt = this.now();
    const { reader, text, prepared, ...ranking } = query;
    team.follower = reader;
    const changes = team.changes;
    // The query's lexemes where this process knows them: what the sync is expected to read.
    const knownLexemes = this.analyses.lexemesOf(text);
    const readerKey = readerKeyOf(reader);
    const preparedFor = prepared === undefined ? undefined : this.preparedFor.get(prepared);
    const syncing =
      knownLexemes !== undefined &&
      prepared !== undefined &&
      preparedFor?.team === team &&
      preparedFor.readerKey === readerKey
        ? this.afterPrepared(prepared, team, reader, text, knownLexemes)
        : (this.withoutSync(teamId, team, readerKey, knownLexemes) ??
          this.sync(team, reader, text, knownLexemes));
    // A sync that needed no statement comes back without the event loop turning: the ranking (and
    // the answer after it) would run before any request read meanwhile, `/healthz` among them, and
    // 50 clients' searches would queue it behind all of theirs. Each ranks in a turn of its own.
    await this.turns.take();
    // While the sync's statement is under way (on PostgreSQL, every search's), the postings are
    // ranked as they are, by the lexemes and lists expected: kept when the sync changed nothing and
    // read the same, so that the round trip and the ranking overlap.
    const expectedLists = team.readers.get(readerKey);
    const expected =
      knownLexemes === undefined || expectedLists === undefined
        ? undefined
        : { lexemes: knownLexemes, accessListIds: expectedLists };
    const early =
      expected !== undefined && expected.lexemes.length > 0 && team.changes === changes
        ? team.index.rank({ ...ranking, accessListIds: expected.accessListIds, terms: expected.lexemes })
        : undefined;
    const read = await syncing;
    if (read === undefined) return undefined;
    const { accessListIds, lexemes } = read;
    if (lexemes.length === 0 || query.teamChunks === 0) return { chunks: [], accessListIds };
    if (
      early !== undefined &&
      team.changes === changes &&
      sameMembers(lexemes, expected?.lexemes) &&
      sameMembers(accessListIds, expected?.accessListIds)
    ) {
      return { chunks: early, accessListIds };
    }
    return { chunks: team.index.rank({ ...ranking, accessListIds, terms: lexemes }), accessListIds };
  }

  /**
   * The ranked chunks as hits, in rank order: those recent searches read from memory, the rest by
   * `read` (a statement that checks the team and access once more). Hits read are kept unless a
   * sync applied changes meanwhile (the row may be older than that sync).
   */
  async hits(
    teamId: number,
    ranked: readonly RankedChunk[],
    read: (chunks: readonly RankedChunk[]) => Promise<ChunkHitRow[]>,
  ): Promise<SearchHit[]> {
    const team = this.loaded.get(teamId);
    if (team === undefined) return (await read(ranked)).map(searchHitOf);
    const known = new Map<number, UnscoredHit>();
    for (const { chunkId } of ranked) {
      const hit = team.hits.get(chunkId);
      if (hit !== undefined) known.set(chunkId, hit);
    }
    const missing = ranked.filter(({ chunkId }) => !known.has(chunkId));
    if (missing.length > 0) {
      const changes = team.changes;
      const rows = await read(missing);
      const keep = team.changes === changes && this.loaded.get(teamId) === team;
      for (const row of rows) {
        const hit = unscoredHitOf(row);
        known.set(hit.chunkId, hit);
        if (keep) team.hits.set(hit.chunkId, hit);
      }
    }
    const found: SearchHit[] = [];
    for (const { chunkId, score } of ranked) {
      const hit = known.get(chunkId);
      if (hit !== undefined) found.push({ ...hit, score });
    }
    return found;
  }

  /** Whether a team's postings are in memory (for tests and benchmarks). */
  holds(teamId: number): boolean {
    return this.loaded.has(teamId);
  }

  /** Resolves once the loads under way have ended, loaded or not (tests wait on it, not on time). */
  async loadsSettled(): Promise<void> {
    await Promise.all([...this.unloaded.values()].map((team) => team.loading));
  }

  /** Resolves once the syncs under way have ended (tests wait on it, not on time). */
  async syncsSettled(): Promise<void> {
    await Promise.all([...this.loaded.values()].map((team) => team.syncing));
  }

  /**
   * Schedules the team's next background sync while its postings are being written; it reads the
   * follower's lists (a statement reads some reader's anyway) and nothing else of theirs. A failed
   * one changes nothing: the next search syncs as it would have.
   */
  private follow(teamId: number, team: LoadedTeam): void {
    const every = this.settings.followEveryMs ?? 0;
    const reader = team.follower;
    // Where changes are heard as they commit, each wakes a sync instead (`wake`).
    if (this.settings.changeMarks?.onChange !== undefined) return;
    if (every <= 0 || team.followScheduled || reader === undefined) return;
    // Only while the team is both written and searched: a team indexing for hours that nobody
    // searches would otherwise cost a statement every `every` ms in every process.
    const followFor = this.settings.followForMs ?? 0;
    if (this.now() - team.changedAt > followFor || this.now() - team.lastUsedAt > followFor) return;
    team.followScheduled = true;
    this.schedule(() => {
      team.followScheduled = false;
      if (this.loaded.get(teamId) !== team) return;
      void this.sync(team, reader, '', [])
        .catch(() => undefined)
        .then(() => this.follow(teamId, team));
    }, every);
  }

  /**
   * Syncs the team for the changes heard (after any sync under way): at once, unless one began less
   * than `followEveryMs` ago, when it is scheduled for then; changes heard meanwhile are read by
   * it. So a file's batches are read as they commit, and a corpus of small documents, a commit
   * every few milliseconds, costs a sync per `followEveryMs`, not one per commit. A failed one
   * changes nothing: the next search syncs.
   */
  private wake(teamId: number, team: LoadedTeam): void {
    if (team.wakeScheduled || team.follower === undefined) return;
    team.wakeScheduled = true;
    const run = () => {
      team.wakeScheduled = false;
      const reader = team.follower;
      if (this.loaded.get(teamId) !== team || reader === undefined) return;
      team.wokeAt = this.now();
      void this.sync(team, reader, '', []).catch(() => undefined);
    };
    const waitMs = team.wokeAt + (this.settings.followEveryMs ?? 0) - this.now();
    if (waitMs <= 0) run();
    else this.schedule(run, waitMs);
  }

  /**
   * What a search reads without a sync when it may: its lexemes and the reader's lists known, and
   * nothing reported done since the last sync's statement. Changes heard but not yet reported done
   * are read in the background meanwhile. Undefined when the search must sync first.
   */
  private withoutSync(
    teamId: number,
    team: LoadedTeam,
    readerKey: string,
    lexemes: readonly string[] | undefined,
  ): Promise<Reading> | undefined {
    const accessListIds = team.readers.get(readerKey);
    if (lexemes === undefined || accessListIds === undefined) return undefined;
    const freshness = this.freshness(teamId, team);
    if (freshness === 'behind') return undefined;
    if (freshness === 'current') team.syncedAt = this.now();
    else this.wake(teamId, team);
    return Promise.resolve({ lexemes, accessListIds });
  }

  private freshness(teamId: number, team: LoadedTeam): Freshness {
    const mark = this.changeMarkOf(teamId);
    if (mark === undefined) return 'behind';
    if (mark === team.syncedMark) return 'current';
    const synced = team.syncedMark;
    return typeof synced === 'string' && this.settings.changeMarks?.covers?.(teamId, synced) === true
      ? 'covering'
      : 'behind';
  }

  /** The team's change mark now (see `LoadedTeam.syncedMark`). */
  private changeMarkOf(teamId: number): number | string | undefined {
    return this.sql.localWrites !== undefined
      ? this.sql.localWrites()
      : this.settings.changeMarks?.mark(teamId);
  }

  /** The prepared sync's lists with the lexemes known here; a sync of the text when it failed. */
  private async afterPrepared(
    prepared: PreparedSearch,
    team: LoadedTeam,
    reader: Reader,
    text: string,
    lexemes: readonly string[],
  ): Promise<Reading | undefined> {
    const accessListIds = await prepared.accessListIds;
    if (accessListIds === undefined) return this.sync(team, reader, text, lexemes);
    return { lexemes, accessListIds };
  }

  /**
   * Reads what changed since the team's snapshot and applies it, after any sync already under way
   * (so a later snapshot is never overwritten by an earlier one); answers the query's lexemes and
   * the reader's access lists, read in the same statement.
   */
  private sync(
    team: LoadedTeam,
    reader: Reader,
    text: string,
    knownLexemes: readonly string[] | undefined,
  ): Promise<Reading | undefined> {
    const teamId = reader.teamId;
    const readerKey = readerKeyOf(reader);
    const run = team.syncing.then(async (): Promise<Reading | undefined> => {
      const started = this.now();
      // Read before the statement is sent: a write ending later moves it, so it is never missed.
      const mark = this.changeMarkOf(teamId);
      if (mark !== undefined && mark === team.syncedMark) {
        const accessListIds = team.readers.get(readerKey);
        const lexemes = accessListIds === undefined ? undefined : knownLexemes;
        if (accessListIds !== undefined && lexemes !== undefined) {
          team.syncedAt = started;
          return { lexemes, accessListIds };
        }
      }
      // Words are learnt where the statement is needed anyway, so that next time they are known:
      // on PostgreSQL a search whose lexemes are known uses the sync `prepare` began.
      const words =
        this.sql.localWrites === undefined && knownLexemes !== undefined
          ? []
          : (this.analyses.wordsOf(text) ?? []);
      // A failed read changes nothing: the next sync reads the same changes again.
      const read = await readLexicalSync(this.sql, reader, team.snapshot, text, words);
      if (this.analyses.learn(words, read.wordLexemes, read.lexemes)) {
        this.logger?.warn({ words }, STEMMER_REFUTED);
      }
      try {
        // Counted first: a ranking made while the changes are applied is not kept as current.
        if (read.changed.length > 0) team.changes += 1;
        let sliceStarted = performance.now();
        for (const chunk of read.changed) {
          team.hits.delete(chunk.chunkId);
          if (chunk.postings.length === 0) team.index.removeChunk(chunk.chunkId);
          else team.index.setChunk(chunk.chunkId, chunk, chunk.postings);
          // Each chunk leaves the index whole, so searches may rank between two slices.
          if (performance.now() - sliceStarted >= APPLY_SLICE_MS) {
            await this.turns.take();
            sliceStarted = performance.now();
          }
        }
        if (read.changed.length > 0) {
          team.changedAt = this.now();
          team.follower = reader;
        }
      } catch (error) {
        // Postings the index refuses would be refused again by every later sync: this process
        // gives the team up (the database ranks it) and loads it again after the retry delay.
        if (this.loaded.get(teamId) === team) this.loaded.delete(teamId);
        this.unloaded.set(teamId, { retryAt: this.now() + this.settings.retryAfterMs });
        this.logger?.warn({ err: error, team: teamId }, 'changed postings could not be applied in memory');
        return undefined;
      }
      team.snapshot = read.snapshot;
      team.syncedAt = started;
      if (mark !== team.syncedMark) team.readers.clear();
      team.syncedMark = mark;
      // Where every search reads the lists anyway (PostgreSQL), they are kept as what to expect.
      if (team.readers.size >= MAX_READERS) team.readers.clear();
      team.readers.set(readerKey, read.accessListIds);
      if (read.changed.length > 0) {
        // A team that grew gives other teams' room back (their searches go to the database).
        this.keepWithinMemory(teamId);
        this.follow(teamId, team);
      }
      return { lexemes: [...read.lexemes].sort(byCodeUnit), accessListIds: read.accessListIds };
    });
    team.syncing = run.catch(() => undefined);
    return run;
  }

  private startLoad(teamId: number): void {
    const known = this.unloaded.get(teamId);
    if (known !== undefined && (known.loading !== undefined || known.retryAt > this.now())) return;
    const retryLater = () => this.unloaded.set(teamId, { retryAt: this.now() + this.settings.retryAfterMs });
    const loading = this.load(teamId).then(
      (team) => {
        if (team === undefined) {
          retryLater();
          return;
        }
        this.unloaded.delete(teamId);
        this.loaded.set(teamId, team);
        this.keepWithinMemory(teamId);
      },
      (error: unknown) => {
        retryLater();
        this.logger?.warn({ err: error, team: teamId }, 'loading postings into memory failed');
      },
    );
    this.unloaded.set(teamId, { loading, retryAt: 0 });
  }

  /**
   * Reads every posting of the team, a batch of chunks per statement (each its own snapshot, so
   * nothing waits behind one long read), from a snapshot taken first: what changed after it is read
   * by the first sync. Undefined when the team outgrows the memory allowed.
   */
  private async load(teamId: number): Promise<LoadedTeam | undefined> {
    const began = performance.now();
    if (this.analyses.awaitsProbe) {
      const probe = await analyzeTexts(this.sql, PROBE_WORDS);
      this.analyses.adoptStemmer(probe.map((lexemes) => [...lexemes.keys()]));
      if (!this.analyses.stems) this.logger?.info({}, STEMMER_REFUSED);
    }
    const { snapshot } = await readLexicalSnapshot(this.sql);
    const syncedAt = this.now();
    const chunkIds = await readTeamChunkIds(this.sql, teamId);
    const index = new TeamLexicalIndex();
    for (let start = 0; start < chunkIds.length; start += LOAD_BATCH_CHUNKS) {
      const batch = chunkIds.slice(start, start + LOAD_BATCH_CHUNKS);
      for (const chunk of await readChunkPostings(this.sql, teamId, batch)) {
        index.setChunk(chunk.chunkId, chunk, chunk.postings);
      }
      if (index.estimatedBytes() > this.settings.memoryBytes) {
        this.logger?.info({ team: teamId, chunks: chunkIds.length }, MEMORY_INDEX_REFUSED);
        return undefined;
      }
    }
    // The arrays grew by doubling while loading: give back the room a full team no longer needs.
    index.compact();
    const hits = new HitCache(Math.min(MAX_HIT_CACHE_BYTES, Math.floor(this.settings.memoryBytes / 8)));
    await this.warmHits(teamId, chunkIds, hits);
    this.logger?.info(
      {
        team: teamId,
        chunks: index.chunkCount,
        postings: index.postingCount,
        megabytes: Math.round(index.estimatedBytes() / 1024 / 102.4) / 10,
        hitMegabytes: Math.round(hits.bytes / 1024 / 102.4) / 10,
        durationMs: Math.round(performance.now() - began),
      },
      MEMORY_INDEX_LOADED,
    );
    return {
      index,
      snapshot,
      syncedAt,
      lastUsedAt: this.now(),
      syncing: Promise.resolve(),
      hits,
      changes: 0,
      changedAt: Number.NEGATIVE_INFINITY,
      follower: undefined,
      followScheduled: false,
      wakeScheduled: false,
      wokeAt: Number.NEGATIVE_INFINITY,
      syncedMark: undefined,
      readers: new Map(),
    };
  }

  /**
   * Reads the team's hits into its cache, a batch of chunks per statement, until the cache is
   * nearly full: a small team's searches then read no text at all, a big one's the chunks not yet
   * kept. Read after the load's snapshot, so what changes later is dropped by the first sync.
   */
  private async warmHits(teamId: number, chunkIds: readonly number[], hits: HitCache): Promise<void> {
    for (let start = 0; start < chunkIds.length; start += LOAD_BATCH_CHUNKS) {
      if (hits.bytes >= hits.maxBytes * HIT_CACHE_WARM_SHARE) return;
      const batch = chunkIds.slice(start, start + LOAD_BATCH_CHUNKS);
      for (const row of await readTeamHitRows(this.sql, teamId, batch)) {
        const hit = unscoredHitOf(row);
        hits.set(hit.chunkId, hit);
      }
    }
  }

  /** Gives up the least recently searched teams (not `keep`) until the rest fit. */
  private keepWithinMemory(keep: number): void {
    const bytes = () =>
      [...this.loaded.values()].reduce((sum, team) => sum + team.index.estimatedBytes() + team.hits.bytes, 0);
    const byAge = [...this.loaded.entries()]
      .filter(([teamId]) => teamId !== keep)
      .sort(([, a], [, b]) => a.lastUsedAt - b.lastUsedAt);
    for (const [teamId] of byAge) {
      if (bytes() <= this.settings.memoryBytes) return;
      this.loaded.delete(teamId);
    }
  }
}

/** What tells readers' access lists apart: who they are, by user, address and groups. */
function readerKeyOf(reader: Reader): string {
  return JSON.stringify([reader.userId, reader.email, reader.groups]);
}

import type { Connection } from './connection.js';
import { violatedUniqueIndex } from './errors.js';
import * as accessLists from './repositories/access-lists.js';
import * as accessTokens from './repositories/access-tokens.js';
import * as accounts from './repositories/accounts.js';
import * as authThrottles from './repositories/auth-throttles.js';
import * as chatappEvents from './repositories/chatapp-events.js';
import * as chats from './repositories/chats.js';
import * as chunkEmbeddings from './repositories/chunk-embeddings.js';
import * as connectors from './repositories/connectors.js';
import * as documents from './repositories/documents.js';
import * as driveSync from './repositories/drive-sync.js';
import * as emailCodes from './repositories/email-codes.js';
import * as indexJobs from './repositories/index-jobs.js';
import * as lexicalChanges from './repositories/lexical-changes.js';
import * as oauth from './repositories/oauth.js';
import * as scim from './repositories/scim.js';
import * as search from './repositories/search.js';
import * as signInPlacement from './repositories/sign-in-placement.js';
import * as storage from './repositories/storage.js';
import * as teamSignInDomains from './repositories/team-sign-in-domains.js';
import * as teams from './repositories/teams.js';
import * as uploadBlobs from './repositories/upload-blobs.js';
import * as users from './repositories/users.js';
import type { SqlExecutor } from './sql-connection.js';

/** Every repository module, by the name its operations are reached under (`data.teams.…`). */
const modules = {
  accessLists,
  accessTokens,
  accounts,
  authThrottles,
  chatappEvents,
  chats,
  chunkEmbeddings,
  connectors,
  documents,
  driveSync,
  emailCodes,
  indexJobs,
  lexicalChanges,
  oauth,
  scim,
  search,
  signInPlacement,
  storage,
  teamSignInDomains,
  teams,
  uploadBlobs,
  users,
};

/**
 * A repository module's operations with the connection bound: each function whose first
 * parameter is a connection (drizzle's `Database`, a `SqlExecutor` or a `SqlConnection`), without
 * it. Its other exports (SQL fragments, pure helpers, constants) are not operations.
 */
export type RepositoryOf<Module> = {
  readonly [Name in keyof Module as Module[Name] extends (connection: Connection, ...rest: never[]) => unknown
    ? Name
    : never]: Module[Name] extends (connection: Connection, ...rest: infer Rest) => infer Result
    ? (...rest: Rest) => Result
    : never;
};

/** The repositories, one per module of `db/repositories/`, on one connection or one transaction. */
export type Repositories = { readonly [Name in keyof typeof modules]: RepositoryOf<(typeof modules)[Name]> };

/** The repositories on the database, and transactions that hand out repositories bound to them. */
export interface RepositoryAccess extends Repositories {
  /**
   * Runs `work` in one transaction: every statement of the repositories it receives runs in it,
   * query builder and raw SQL alike; `connection` lets the job queue join it (`SendOptions.db`).
   */
  transaction<T>(work: (repositories: Repositories, connection: SqlExecutor) => Promise<T>): Promise<T>;
  /** The unique index whose violation failed a write, if that is why it failed ('' when unnamed). */
  violatedUniqueIndex(error: unknown): string | undefined;
}

/** The repositories over `connection` (see `connectionOf`); transactions join its raw SQL's. */
export function repositoryAccess(connection: Connection): RepositoryAccess {
  return {
    ...bindRepositories(connection),
    transaction: (work) =>
      connection.transaction((transaction: SqlExecutor) => {
        // connectionOf hands every transaction's work a Connection, whatever its declared type.
        const inTransaction = transaction as Connection;
        return work(bindRepositories(inTransaction), inTransaction);
      }),
    violatedUniqueIndex,
  };
}

/**
 * Every repository module bound to `connection`, each on first use: a transaction binds only the
 * modules its work touches.
 */
export function bindRepositories(connection: Connection): Repositories {
  const repositories = {};
  for (const [name, module] of Object.entries(modules)) {
    let bound: object | undefined;
    Object.defineProperty(repositories, name, {
      enumerable: true,
      get: () => {
        bound ??= bind(module, connection);
        return bound;
      },
    });
  }
  return repositories as Repositories;
}

/** Each module's operations' names, found once: a module's functions (see `bind`). */
const operationNames = new Map<object, readonly string[]>();

/**
 * The module's functions with `connection` as their first argument. At run time every function
 * is wrapped (JavaScript does not know parameter types); the type shows only the operations.
 */
function bind<Module extends object>(module: Module, connection: Connection): RepositoryOf<Module> {
  let names = operationNames.get(module);
  if (names === undefined) {
    names = Object.entries(module)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    operationNames.set(module, names);
  }
  const functions = module as Record<string, (connection: Connection, ...rest: unknown[]) => unknown>;
  const bound: Record<string, unknown> = {};
  for (const name of names) {
    const operation = functions[name];
    if (operation !== undefined) bound[name] = (...rest: unknown[]) => operation(connection, ...rest);
  }
  return bound as RepositoryOf<Module>;
}

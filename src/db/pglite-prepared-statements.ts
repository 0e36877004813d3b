import { createHash } from 'node:crypto';
import type { Results } from '@electric-sql/pglite';

/** What runs the prepared statements: the embedded database's simple-query `exec`. */
export type ExecuteScript = (script: string) => Promise<Results[]>;

/** PostgreSQL's code when the session has no prepared statement of that name (a new session). */
const UNKNOWN_PREPARED_STATEMENT = '26000';
/** PostgreSQL's code when the name is taken: another caller prepared the same text first. */
const DUPLICATE_PREPARED_STATEMENT = '42P05';

/**
 * Named prepared statements on PGlite, for the statements a search sends many times a second
 * (`StatementOptions.prepared`). PGlite's `query` runs the extended protocol: parse, describe,
 * bind and execute, each a trip into its WASM, and the text parsed and planned every time; the
 * search's sync statement took 0.9 ms so. Prepared once (`PREPARE`), then run as `EXECUTE
 * name(…)` by the simple protocol, one trip, it takes 0.2 ms (bench/search-xapian's SciFact
 * team, in-process). `EXECUTE` takes no bound parameters, so each value is written as a quoted
 * literal in PostgreSQL's text format: the form the extended protocol would have bound it in,
 * converted to the parameter's type by the same input function.
 */
export class PglitePreparedStatements {
  /** Names this session has prepared (or is preparing), by statement text. */
  readonly #prepared = new Map<string, Promise<void>>();

  /** `prepareWith` sends the PREPAREs, which write nothing. */
  constructor(private readonly prepareWith: ExecuteScript) {}

  /**
   * The statement's rows, run prepared by `executeWith`; undefined when a value has no literal
   * form here (the caller sends the statement as it is).
   */
  async run(
    text: string,
    values: readonly unknown[],
    executeWith: ExecuteScript,
  ): Promise<Results | undefined> {
    const literals: string[] = [];
    for (const value of values) {
      const literal = textLiteral(value);
      if (literal === undefined) return undefined;
      literals.push(literal);
    }
    const name = preparedStatementName(text);
    const execute = `EXECUTE ${name}(${literals.join(', ')})`;
    await this.#prepare(name, text);
    try {
      return lastResult(await executeWith(execute));
    } catch (error) {
      if (errorCode(error) !== UNKNOWN_PREPARED_STATEMENT) throw error;
      // The session that prepared it is gone (the database was opened again): prepare it anew.
      this.#prepared.delete(text);
      await this.#prepare(name, text);
      return lastResult(await executeWith(execute));
    }
  }

  #prepare(name: string, text: string): Promise<void> {
    let preparing = this.#prepared.get(text);
    if (preparing === undefined) {
      preparing = this.prepareWith(`PREPARE ${name} AS ${text}`).then(
        () => undefined,
        (error: unknown) => {
          if (errorCode(error) === DUPLICATE_PREPARED_STATEMENT) return;
          this.#prepared.delete(text);
          throw error;
        },
      );
      this.#prepared.set(text, preparing);
    }
    return preparing;
  }
}

/** Prepared statements' names by their text: the same text always gets the same name. */
const preparedNames = new Map<string, string>();

/** A prepared statement's name, on PGlite and PostgreSQL alike: hashed once per text. */
export function preparedStatementName(text: string): string {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `prepared_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return name;
}

function lastResult(results: Results[]): Results {
  return results.at(-1) ?? { rows: [], fields: [] };
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/**
 * A value as a quoted SQL literal of its text form (`E'…'`, so backslashes and quotes are escaped
 * whatever `standard_conforming_strings` says), or NULL; undefined for what has no text form here
 * (objects, bytes, non-finite numbers, NUL characters), which the caller binds instead.
 */
export function textLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  const text = textForm(value);
  if (text === undefined || text.includes('\0')) return undefined;
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** PostgreSQL's text input form of a value, as the extended protocol would send it. */
function textForm(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
      if (Array.isArray(value)) return arrayForm(value);
      return undefined;
  }
}

/** An array's text form: `{"a","b",NULL}`, each element quoted with `\` and `"` escaped. */
function arrayForm(values: readonly unknown[]): string | undefined {
  const elements: string[] = [];
  for (const element of values) {
    if (element === null || element === undefined) {
      elements.push('NULL');
      continue;
    }
    const text = Array.isArray(element) ? arrayForm(element) : textForm(element);
    if (text === undefined) return undefined;
    elements.push(
      Array.isArray(element) ? text : `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`,
    );
  }
  return `{${elements.join(',')}}`;
}

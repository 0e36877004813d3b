import { parseArgs } from 'node:util';
import { FatalError, UsageError } from './cli-errors.js';
import { type IngestOptions, ingest } from './ingest.js';
import type { TextSink } from './progress.js';
import { formatSummaryText } from './summary.js';

/** What the command reads and writes beyond its arguments: the process's, or a test's. */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** The environment variables the command falls back on. */
  readonly env: {
    readonly KNOWLEDGE_URL?: string | undefined;
    readonly KNOWLEDGE_TOKEN?: string | undefined;
  };
  readonly stderrIsTty: boolean;
  readonly stderrColumns?: number;
  /** Job polling interval; tests shorten it. */
  readonly pollIntervalMs?: number;
  /** First retry delay; tests shorten it. */
  readonly retryBaseMs?: number;
}

export const EXIT_OK = 0;
export const EXIT_SOME_FAILED = 1;
export const EXIT_USAGE = 2;

const PROGRAM = 'knowledge-answers';
const DEFAULT_URL = 'http://127.0.0.1:8000';

export const USAGE = `Usage: ${PROGRAM} ingest <folder | file.jsonl | file> [options]

Uploads documents to a knowledge-answers service, waits until they are indexed, and
prints what became of them.

  <folder>      every .pdf .docx .md .markdown .txt .html .htm .csv .json file below it
                (names starting with a dot are left out); external_id = its path
                relative to the folder; other files are reported as skipped
  <file.jsonl>  one document per line: {"external_id","title","text","url"?,"metadata"?}
                or the BEIR corpus shape {"_id","title","text","metadata"?}
  <file>        one file of a type above; external_id = its name

Options:
  --url URL                  the service (default: $KNOWLEDGE_URL, else ${DEFAULT_URL})
  --token TOKEN              bearer token (default: $KNOWLEDGE_TOKEN, which is safer:
                             arguments are visible to other users in ps)
  --batch-size N             JSONL documents per request (default 100; lowered to what
                             the service accepts)
  --concurrency N            upload requests in flight (default 2)
  --external-id-prefix TEXT  put in front of every external_id
  --no-wait                  stop once uploaded; do not wait for the indexing
  --json                     print the summary as JSON
  --retries N                retries of a request after a network error, 429 or 5xx
                             (default 4, with backoff; Retry-After is honoured)
  --max-wait SECONDS         while the service is unavailable (503, connection refused:
                             a restart or failover), keep retrying for up to this long,
                             beyond --retries (default 300; 0: only --retries)
  -h, --help                 this text

Exit status: 0 nothing failed, 1 some documents failed, 2 bad arguments, service
unreachable, token refused, or the run stopped early.
`;

/** Runs the command line `argv` (without node and the script); answers the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: { command: 'help' } | { command: 'ingest'; options: IngestOptions; json: boolean };
  try {
    parsed = parseCommandLine(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`${PROGRAM}: ${error.message}\nRun '${PROGRAM} --help' for the usage.\n`);
    return EXIT_USAGE;
  }
  if (parsed.command === 'help') {
    io.stdout.write(USAGE);
    return EXIT_OK;
  }
  try {
    const summary = await ingest(parsed.options, {
      stderr: io.stderr,
      stderrIsTty: io.stderrIsTty,
      ...(io.stderrColumns === undefined ? {} : { stderrColumns: io.stderrColumns }),
      ...(io.pollIntervalMs === undefined ? {} : { pollIntervalMs: io.pollIntervalMs }),
      ...(io.retryBaseMs === undefined ? {} : { retryBaseMs: io.retryBaseMs }),
    });
    io.stdout.write(parsed.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummaryText(summary));
    if (summary.aborted !== null) {
      // The text summary says so itself; a JSON one is read by a program, and a person reads stderr.
      if (parsed.json) io.stderr.write(`${PROGRAM}: stopped early: ${summary.aborted}\n`);
      return EXIT_USAGE;
    }
    return summary.failed > 0 ? EXIT_SOME_FAILED : EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\nRun '${PROGRAM} --help' for the usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof FatalError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    // A bug: its stack helps whoever reports it.
    io.stderr.write(
      `${PROGRAM}: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    return EXIT_USAGE;
  }
}

function parseCommandLine(
  argv: readonly string[],
  env: CliIo['env'],
): { command: 'help' } | { command: 'ingest'; options: IngestOptions; json: boolean } {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'batch-size': { type: 'string' },
        concurrency: { type: 'string' },
        'external-id-prefix': { type: 'string' },
        'no-wait': { type: 'boolean' },
        json: { type: 'boolean' },
        retries: { type: 'string' },
        'max-wait': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true || positionals[0] === 'help') return { command: 'help' };
  const [command, source, ...extra] = positionals;
  if (command === undefined) throw new UsageError('no command: try `ingest <folder|file.jsonl|file>`');
  if (command !== 'ingest') throw new UsageError(`unknown command "${command}"`);
  if (source === undefined) throw new UsageError('ingest needs a folder, a .jsonl file or a file');
  if (extra.length > 0) throw new UsageError(`one source at a time (also given: ${extra.join(' ')})`);

  const token = stringOption(values.token) ?? nonEmpty(env.KNOWLEDGE_TOKEN);
  if (token === undefined) throw new UsageError('no token: pass --token or set KNOWLEDGE_TOKEN');
  const urlText = stringOption(values.url) ?? nonEmpty(env.KNOWLEDGE_URL) ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new UsageError(`--url "${urlText}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be http:// or https://, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('--url must not carry a user name or password: the token is what signs in');
  }
  return {
    command: 'ingest',
    json: values.json === true,
    options: {
      source,
      url,
      token,
      batchSize: integerOption('batch-size', values['batch-size'], 100, 1, 100_000),
      concurrency: integerOption('concurrency', values.concurrency, 2, 1, 64),
      retries: integerOption('retries', values.retries, 4, 0, 20),
      maxWaitSeconds: integerOption('max-wait', values['max-wait'], 300, 0, 86_400),
      wait: values['no-wait'] !== true,
      externalIdPrefix: stringOption(values['external-id-prefix']) ?? '',
    },
  };
}

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integerOption(
  name: string,
  value: string | boolean | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (typeof value !== 'string') return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  }
  return number;
}

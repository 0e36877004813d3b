import type { IncomingHttpHeaders } from 'node:http';
import { SourceError, type SourceFailure } from '../source-error.js';
import {
  GuardedHttpClient,
  GuardedHttpError,
  type GuardedHttpOptions,
  type GuardedHttpProblem,
  type GuardedHttpRequest,
} from './guarded-http-client.js';

export interface GuardedFetchOptions extends Omit<GuardedHttpOptions, 'remoteName'> {
  readonly allowedHosts: readonly string[];
  readonly trustedOrigins: readonly string[];
  /** Names the remote in messages, e.g. `the wiki`. Default `the source`. */
  readonly sourceName?: string | undefined;
}

/** A complete answer, whatever its status: 3xx included, since redirects are never followed. */
export class GuardedResponse {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: Buffer,
    private readonly describeSource: string,
  ) {}

  text(): string {
    return this.body.toString('utf8');
  }

  /** The body parsed as JSON; `bad_response` when it is not JSON (a login page, a proxy's error). */
  json(): unknown {
    try {
      return JSON.parse(this.text());
    } catch (error) {
      const contentType = this.headers['content-type']?.slice(0, 80);
      throw new SourceError(
        'bad_response',
        `${this.describeSource} answered HTTP ${this.status} with something that is not JSON${
          contentType === undefined ? '' : ` (${contentType})`
        }`,
        { status: this.status, cause: error },
      );
    }
  }
}

/**
 * `GuardedHttpClient` (its policy: guarded-http-client.ts) for knowledge sources whose address users
 * choose, failing as the source adapters do: every failure is a `SourceError`; an abort rejects
 * with the signal's reason.
 */
export class GuardedFetch {
  private readonly client: GuardedHttpClient;

  constructor(options: GuardedFetchOptions) {
    const { sourceName, ...policy } = options;
    this.client = new GuardedHttpClient({ ...policy, remoteName: sourceName ?? 'the source' });
  }

  /** Checks the policy for this URL (resolving its host) without sending anything. */
  async check(url: string | URL): Promise<void> {
    await this.client.check(url).catch(rethrowAsSourceError);
  }

  async request(url: string | URL, request: GuardedHttpRequest = {}): Promise<GuardedResponse> {
    const response = await this.client.request(url, request).catch(rethrowAsSourceError);
    return new GuardedResponse(response.status, response.headers, response.body, response.describeRemote);
  }
}

function rethrowAsSourceError(error: unknown): never {
  if (!(error instanceof GuardedHttpError)) throw error;
  const { problem } = error;
  const status = 'status' in problem ? problem.status : undefined;
  throw new SourceError(sourceFailureOf(problem), error.message, {
    ...(status === undefined ? {} : { status }),
    cause: error.cause,
  });
}

function sourceFailureOf(problem: GuardedHttpProblem): SourceFailure {
  switch (problem.kind) {
    case 'refused':
      return 'refused';
    case 'unsendable_header':
      return 'bad_response';
    case 'unresolved':
    case 'broken_answer':
      return 'unavailable';
    case 'timeout':
      return 'timeout';
    case 'too_large':
      return 'too_large';
    case 'connection_failed':
      // A certificate or TLS mismatch is a setup problem: retrying will not mend it.
      return problem.reason === 'certificate'
        ? 'bad_response'
        : problem.reason === 'timed_out'
          ? 'timeout'
          : 'unavailable';
  }
}

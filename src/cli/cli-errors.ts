/** A problem with how the command was called (arguments, path): exit code 2, with the usage hint. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A problem that makes every further request pointless (server unreachable, token refused, wrong
 * URL): the run stops, and exits 2.
 */
export class FatalError extends Error {
  override readonly name = 'FatalError';
}

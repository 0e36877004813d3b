import { type CliIo, runCli } from '../../src/cli/run-cli.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real command line in this process with its output captured: not a terminal, no
 * environment, fast polls and retries unless `io` says otherwise.
 */
export async function runCliCaptured(argv: readonly string[], io: Partial<CliIo> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: {},
    stderrIsTty: false,
    pollIntervalMs: 100,
    retryBaseMs: 10,
    ...io,
    stdout: {
      write: (text) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text) => {
        stderr += text;
      },
    },
  });
  return { code, stdout, stderr };
}

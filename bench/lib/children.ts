import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A child process of a benchmark, with the tail of its output kept for error messages. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last 64 KiB of its stdout and stderr, interleaved. */
  output(): string;
  /**
   * Calls `listener` with each whole line of its stdout and stderr (without the newline) from now
   * on; returns what stops it.
   */
  onLine(listener: (line: string) => void): () => void;
  /** Resolves with the exit code (or null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Data written to stdin, which is then closed. */
  readonly input?: string;
  /** Keep stdout apart from the combined output (for a child that answers in JSON). */
  readonly collectStdout?: boolean;
}

const OUTPUT_LIMIT = 64 * 1024;
const running = new Set<ChildProcess>();

/** Spawns a child that is killed by `killAllChildren` and, at the latest, when this process exits. */
export function spawnChild(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): Child & { stdout(): string } {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  let stdout = '';
  const lineListeners = new Set<(line: string) => void>();
  // Each stream's partial last line, completed by its next chunk.
  const splitter = () => {
    let partial = '';
    return (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) for (const listener of lineListeners) listener(line);
    };
  };
  const stdoutLines = splitter();
  const stderrLines = splitter();
  const keep = (text: string) => {
    output = (output + text).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (options.collectStdout === true) stdout += text;
    else keep(text);
    stdoutLines(text);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    keep(text);
    stderrLines(text);
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (error) => {
      running.delete(child);
      reject(new Error(`${name}: could not start ${command}: ${error.message}`));
    });
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  // A caller that only stops the child must not see an unhandled rejection.
  exited.catch(() => {});
  return {
    name,
    process: child,
    output: () => output,
    onLine: (listener) => {
      lineListeners.add(listener);
      return () => lineListeners.delete(listener);
    },
    stdout: () => stdout,
    exited,
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Kills every child still running, at once (for an abort, or the `exit` event). */
export function killAllChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];

/** Registers work to undo (stop a child, drop a database…); answers a function that unregisters it. */
export function onCleanup(cleanup: Cleanup): () => void {
  cleanups.push(cleanup);
  return () => {
    const index = cleanups.lastIndexOf(cleanup);
    if (index >= 0) cleanups.splice(index, 1);
  };
}

/** Registers a cleanup and answers a function that runs it now (once) instead of at the end. */
export function deferCleanup(cleanup: Cleanup): () => Promise<void> {
  const unregister = onCleanup(cleanup);
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    unregister();
    await cleanup();
  };
}

/** Runs the registered cleanups, last registered first; a failing one does not stop the others. */
export async function runCleanups(): Promise<void> {
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) {
    try {
      await cleanup();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/**
 * Bounds the run: after `deadlineMs`, or on Ctrl-C / SIGTERM, cleans up and exits non-zero.
 * Whatever happens, no child outlives this process.
 */
export function installCleanupHandlers(deadlineMs: number): () => void {
  let aborting = false;
  const abort = async (reason: string, code: number) => {
    if (aborting) return;
    aborting = true;
    process.stderr.write(`\n${reason}: cleaning up\n`);
    const force = setTimeout(() => {
      killAllChildren();
      process.exit(code);
    }, 20_000);
    force.unref();
    await runCleanups();
    killAllChildren();
    process.exit(code);
  };
  const timer = setTimeout(
    () => void abort(`benchmark exceeded its ${Math.round(deadlineMs / 1000)} s deadline`, 1),
    deadlineMs,
  );
  timer.unref();
  const onSigint = () => void abort('interrupted', 130);
  const onSigterm = () => void abort('terminated', 143);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('exit', killAllChildren);
  return () => {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  };
}

/** Runs a benchmark's main function; a failure is printed, its children stopped, and the exit code 1. */
export function runBenchmark(name: string, main: () => Promise<void>): void {
  main().catch(async (error: unknown) => {
    process.stderr.write(
      `bench:${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    await runCleanups();
    process.exit(1);
  });
}

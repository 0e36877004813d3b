import { describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../../test/helpers/hang-bound.js';
import { ConnectionWatch, DatabaseUnavailableError, isDatabaseUnavailable } from './database-availability.js';

function recordingLogger() {
  const warnings: { details: object; message: string }[] = [];
  return {
    warnings,
    logger: { warn: (details: object, message: string) => warnings.push({ details, message }) },
  };
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

async function until(condition: () => boolean, timeoutMs = HANG_BOUND_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('isDatabaseUnavailable', () => {
  it('recognises lost and refused connections, however they are wrapped', () => {
    const terminated = new Error('Connection terminated unexpectedly');
    // drizzle wraps the driver's error in its own, with the query in the message.
    const wrapped = new Error('Failed query: select 1\nparams: ', { cause: terminated });
    expect(isDatabaseUnavailable(terminated)).toBe(true);
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(
      isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01')),
    ).toBe(true);
    expect(isDatabaseUnavailable(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('connection failure', '08006'))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError())).toBe(true);
  });

  it('counts a refused or reset socket only when it was a database connection’s', () => {
    const refused = withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
    const reset = withCode('read ECONNRESET', 'ECONNRESET');
    // A source's API resetting its connection is no database outage.
    expect(isDatabaseUnavailable(refused)).toBe(false);
    const watch = new ConnectionWatch({ probe: async () => {}, logger: recordingLogger().logger });
    watch.noteFailure(refused);
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: refused }))).toBe(true);
    expect(isDatabaseUnavailable(reset)).toBe(false);
    watch.close();
  });

  it('leaves the statement’s own failures alone', () => {
    expect(isDatabaseUnavailable(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('canceling statement due to user request', '57014'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('deadlock detected', '40P01'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly, said the user'))).toBe(false);
    expect(isDatabaseUnavailable('Connection terminated unexpectedly')).toBe(false);
  });
});

describe('ConnectionWatch', () => {
  it('does not call a connection a pooler closed an outage: the probe answers, nothing is logged', async () => {
    const { warnings, logger } = recordingLogger();
    let probes = 0;
    const watch = new ConnectionWatch({ probe: async () => void probes++, logger, probeIntervalMs: 10 });
    watch.noteFailure(new Error('Connection terminated unexpectedly'));
    await until(() => probes === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(watch.available).toBe(true);
    expect(warnings).toEqual([]);
    watch.close();
  });

  it('ignores failures that are not about the connection', async () => {
    let probes = 0;
    const watch = new ConnectionWatch({ probe: async () => void probes++, logger: recordingLogger().logger });
    watch.noteFailure(withCode('duplicate key value', '23505'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(probes).toBe(0);
    watch.close();
  });

  it('confirms an outage with a probe, logs it once, and logs once more when the database is back', async () => {
    const { warnings, logger } = recordingLogger();
    let up = false;
    let clock = 1000;
    const watch = new ConnectionWatch({
      probe: async () => {
        if (!up) throw withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
      },
      logger,
      probeIntervalMs: 10,
      now: () => clock,
    });
    for (let failure = 0; failure < 50; failure++) {
      watch.noteFailure(new Error('Connection terminated unexpectedly'));
    }
    await until(() => !watch.available);
    const back = watch.whenAvailable();
    let resolved = false;
    void back.then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    watch.noteFailure(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    expect(resolved).toBe(false);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'database connection lost; answering 503 until it is back',
    ]);
    expect(warnings[0]?.details).toEqual({ reason: 'Connection terminated unexpectedly' });

    clock += 6000;
    up = true;
    await back;
    expect(watch.available).toBe(true);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'database connection lost; answering 503 until it is back',
      'database connection regained',
    ]);
    expect(warnings[1]?.details).toEqual({ outageMs: 6000 });
    watch.close();
  });

  it('lets a wait for the database be given up', async () => {
    const watch = new ConnectionWatch({
      probe: () => Promise.reject(new Error('down')),
      logger: recordingLogger().logger,
      probeIntervalMs: 10,
    });
    watch.noteFailure(new Error('Connection terminated unexpectedly'));
    await until(() => !watch.available);
    const stop = new AbortController();
    const waiting = watch.whenAvailable(stop.signal);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    watch.close();
  });
});

// The /healthz prober: runs in a process of its own (so the benchmark's own work never delays a
// probe), sends `GET <url>` every `<interval>` ms on a fixed schedule, whether or not the previous
// answers have come back, and on SIGTERM prints every sample as one JSON line and exits.
//
//   node --import tsx bench/indexing/prober.ts <url> <interval-ms>
//
// Prints `ready` once the first probe has been answered. A sample is
// `[sentAtEpochMs, latencyMs, ok]`; the latency runs from the moment the probe was due, so a
// probe that waits for a free socket counts the wait.
import http from 'node:http';

export type ProbeSample = readonly [sentAtEpochMs: number, latencyMs: number, ok: 0 | 1];

const PROBE_TIMEOUT_MS = 5_000;

const [url = '', intervalRaw = '20'] = process.argv.slice(2);
const intervalMs = Number(intervalRaw);
if (url === '' || !Number.isFinite(intervalMs) || intervalMs <= 0) {
  process.stderr.write('usage: prober.ts <url> <interval-ms>\n');
  process.exit(2);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const samples: ProbeSample[] = [];
let announced = false;
let stopping = false;

function probe(): void {
  const due = performance.now();
  const sentAt = performance.timeOrigin + due;
  let done = false;
  const finish = (ok: boolean) => {
    if (done) return;
    done = true;
    samples.push([Math.round(sentAt * 1000) / 1000, performance.now() - due, ok ? 1 : 0]);
    if (ok && !announced) {
      announced = true;
      process.stdout.write('ready\n');
    }
  };
  const request = http.get(url, { agent, timeout: PROBE_TIMEOUT_MS }, (response) => {
    response.resume();
    response.on('end', () => finish(response.statusCode === 200));
    response.on('error', () => finish(false));
  });
  request.on('timeout', () => request.destroy(new Error('timed out')));
  request.on('error', () => finish(false));
}

// A fixed schedule: the n-th probe is due at start + n × interval, not interval after the last one.
const start = performance.now();
let sent = 0;
function schedule(): void {
  if (stopping) return;
  probe();
  sent += 1;
  const next = start + sent * intervalMs;
  setTimeout(schedule, Math.max(0, next - performance.now()));
}
schedule();

process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify(samples)}\n`, () => {
    agent.destroy();
    process.exit(0);
  });
});

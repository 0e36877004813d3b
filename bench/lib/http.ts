import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Child } from './children.js';

/** A free loopback port for a child server to listen on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Polls `url` until it answers 2xx; fails early if the child exits, or after `timeoutMs` (generous: a busy machine starts slowly). */
export async function waitUntilReady(url: string, child: Child, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before it was ready:\n${child.output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new Error(`${child.name} was not ready within ${timeoutMs} ms:\n${child.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
}

/** One JSON request, for setting up a benchmark (not for measuring). */
export async function requestJson(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed };
}

/** Like `requestJson`, but fails unless the status is one of `expected`. */
export async function expectJson(
  expected: readonly number[],
  method: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<unknown> {
  const response = await requestJson(method, url, body, headers);
  if (!expected.includes(response.status)) {
    throw new Error(
      `${method} ${url} answered ${response.status}, expected ${expected.join(' or ')}: ${JSON.stringify(response.body).slice(0, 500)}`,
    );
  }
  return response.body;
}

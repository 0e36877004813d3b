import { describe, expect, it } from 'vitest';
import { readNdjson } from './ndjson';

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of readNdjson(stream)) values.push(value);
  return values;
}

describe('readNdjson', () => {
  it('reads one value per line', async () => {
    expect(
      await readAll(streamOf(['{"answer":"a"}\n{"answer":"b"}\n{"done":true,"chat_id":"c"}\n'])),
    ).toEqual([{ answer: 'a' }, { answer: 'b' }, { done: true, chat_id: 'c' }]);
  });

  it('joins lines split across chunks', async () => {
    expect(await readAll(streamOf(['{"ans', 'wer":"hel', 'lo"}\n{"sour', 'ces":[]}', '\n']))).toEqual([
      { answer: 'hello' },
      { sources: [] },
    ]);
  });

  it('joins a character split across chunks', async () => {
    const bytes = new TextEncoder().encode('{"answer":"café ☕"}\n');
    const cut = bytes.length - 4; // inside the three bytes of ☕
    expect(await readAll(streamOf([bytes.slice(0, cut), bytes.slice(cut)]))).toEqual([{ answer: 'café ☕' }]);
  });

  it('reads a last line without its newline and skips blank lines', async () => {
    expect(await readAll(streamOf(['\n{"a":1}\r\n\n', '  \n{"b":2}']))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('reads nothing from an empty stream', async () => {
    expect(await readAll(streamOf([]))).toEqual([]);
  });

  it('throws on a line that is not JSON', async () => {
    await expect(readAll(streamOf(['<html>\n']))).rejects.toThrow(SyntaxError);
  });
});

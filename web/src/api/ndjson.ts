/**
 * Reads a stream of newline-delimited JSON: one value per line, lines possibly split across chunks
 * (and a multi-byte character across two), blank lines ignored, a last line without its newline
 * still read. A line that is not JSON throws: the stream is not what was asked for.
 */
export async function* readNdjson(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<unknown, void, undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    while (true) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim() !== '') yield JSON.parse(line);
        newline = pending.indexOf('\n');
      }
      if (done) break;
    }
    if (pending.trim() !== '') yield JSON.parse(pending);
  } finally {
    reader.releaseLock();
  }
}

/** One part of a multipart/form-data body: a form field, or a file when it has a `fileName`. */
export interface FormPart {
  readonly name: string;
  readonly fileName?: string;
  /** Sent as the part's Content-Type; without it the part has no such header. */
  readonly type?: string;
  readonly content: Uint8Array | string;
}

/** A multipart/form-data body, built by hand as a browser (or curl -F) sends it. */
export function multipart(parts: readonly FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.fileName === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.fileName}"`;
    const headers = [`Content-Disposition: ${disposition}`];
    if (part.type !== undefined) headers.push(`Content-Type: ${part.type}`);
    pieces.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`));
    pieces.push(Buffer.from(part.content));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

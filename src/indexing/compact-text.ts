/** A UTF-16 code unit beyond Latin-1 (surrogates included). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * The same text as a string of its own: in V8's one-byte form when it holds only Latin-1, and
 * never a slice that keeps a bigger string alive. Text cut from a file with a single character
 * beyond Latin-1 (one emoji anywhere) is stored at two bytes a character, and as a slice of the
 * whole file: a 30 MiB Markdown file's blocks kept its 60 MiB decoded text in the parse thread,
 * and its chunks came to the main thread, which holds them until they are stored, at twice their
 * size.
 */
export function compactText(text: string): string {
  return BEYOND_LATIN1.test(text)
    ? Buffer.from(text, 'utf16le').toString('utf16le')
    : Buffer.from(text, 'latin1').toString('latin1');
}

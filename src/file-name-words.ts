/** A file name as words: its extension off, `-`, `_` and `.` as spaces (`pino-api.md`: "pino api"). */
export function fileNameWords(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  let words = '';
  for (const character of stem)
    words += character === '-' || character === '_' || character === '.' ? ' ' : character;
  return words.trim();
}

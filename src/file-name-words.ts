/** A file name as words: its extension off, `-`, `_` and `.` as spaces (`pino-api.md`: "pino api"). */
export function fileNameWords(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  let words = '';
  for (const character of stem)
    words += character === '-' || character === '_' || character === '.' ? ' ' : character;
  return words.trim();
}

/** A title with its file name's words (`date-fns-README.md` says what an untitled introduction is about). */
export function titleWithFileName(title: string, fileName: string | null): string {
  return fileName === null ? title : `${title}\n${fileNameWords(fileName)}`;
}

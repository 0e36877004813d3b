/**
 * The file name to show beside a title, when it says something the title does not: "pino-api.md"
 * beside "API", or which of two "Café menu" documents this is. None when it is the title itself.
 */
export function fileNameBesideTitle(title: string, fileName: string | null | undefined): string | undefined {
  if (fileName === null || fileName === undefined || fileName.trim() === '') return undefined;
  return fileName.trim() === title.trim() ? undefined : fileName;
}

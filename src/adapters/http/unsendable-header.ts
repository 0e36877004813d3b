import { validateHeaderName, validateHeaderValue } from 'node:http';

/**
 * The name of the first header Node cannot send (characters beyond Latin-1, control characters),
 * which `http.request` would otherwise throw as a bare TypeError; undefined when all can go.
 */
export function unsendableHeader(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return name;
    }
  }
  return undefined;
}

/** The only link schemes an answer may carry: anything else (javascript:, data:, file:, relative) is no link. */
const LINK_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:']);

function parseAbsolute(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * The URL a link in an answer may point to, as the browser will read it, or '' for none. The check
 * runs on the parsed URL, so the spellings a browser forgives ("java\nscript:", upper case, leading
 * spaces) are judged by what they mean. A relative URL is refused: an answer quotes documents from
 * elsewhere, and a path of this service has no business in one.
 */
export function safeLinkUrl(url: string): string {
  const parsed = parseAbsolute(url.trim());
  return parsed !== undefined && LINK_PROTOCOLS.has(parsed.protocol) ? parsed.href : '';
}

/** Whether a source's URL is a web address the app may open in a new tab. */
export function isWebUrl(url: string | null | undefined): url is string {
  if (url === null || url === undefined) return false;
  const parsed = parseAbsolute(url.trim());
  return parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
}

/**
 * react-markdown's `urlTransform`: every URL of the rendered answer passes here, link definitions
 * (`[x]: url`) included. Links keep only safe URLs; an image source is always dropped (images are
 * rendered as their alt text, and nothing is ever fetched from another origin).
 */
export function markdownUrlTransform(url: string, key: string): string {
  return key === 'href' ? safeLinkUrl(url) : '';
}

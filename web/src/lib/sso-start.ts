/**
 * The single sign-on link's address: the service's start URL, with the page to come back to once
 * signed in (`return_to`) when that is not the home page (an MCP client's consent page, say).
 */
export function ssoStartHref(startUrl: string, pathname: string, search: string): string {
  const here = pathname + search;
  if (here === '/' || here === '') return startUrl;
  const separator = startUrl.includes('?') ? '&' : '?';
  return `${startUrl}${separator}return_to=${encodeURIComponent(here)}`;
}

import type { LoggerOptions } from 'pino';

/** Query parameters that carry secrets (the code in a mailed verification link). */
const SECRET_QUERY_PARAMETERS = new Set(['code', 'token', 'access_token']);

/** JSON logs, one line an event, secrets censored wherever they appear by those names. */
export function loggerOptions(level: LoggerOptions['level']): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    serializers: { req: serializeRequest },
  };
}

interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/** fastify's request fields, with secret query parameters censored in the URL. */
function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactQuery(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** `/path?code=abc&x=1` → `/path?code=[redacted]&x=1`. */
export function redactQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const pairs = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = decodeURIComponentSafely(equals < 0 ? pair : pair.slice(0, equals));
      return SECRET_QUERY_PARAMETERS.has(name.toLowerCase())
        ? `${pair.slice(0, equals < 0 ? pair.length : equals)}=[redacted]`
        : pair;
    });
  return `${url.slice(0, mark)}?${pairs.join('&')}`;
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Header names and body fields that must never reach a log line. */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers["x-drive-authorization"]',
  'req.headers.cookie',
  'req.headers["x-slack-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.new_password',
  '*.current_password',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.wikiApiToken',
  '*.token',
];

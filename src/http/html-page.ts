import type { FastifyReply } from 'fastify';

/**
 * Answers with a small page of the service's own (outside the web app): a mailed link's
 * confirmation, an authorization request that cannot be shown. `body` is HTML: escape what it
 * quotes.
 */
export function sendPage(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>\n<body><main><h1>${escapeHtml(title)}</h1>\n${body}\n</main></body></html>\n`,
    );
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

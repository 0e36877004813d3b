import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../../errors.js';
import { verifyEmail } from '../../../services/verify-email.js';
import type { AppOptions } from '../../app-options.js';
import { escapeHtml, sendPage } from '../../html-page.js';
import { ErrorDetail, ValidationErrorBody } from '../../schema-types.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const CodeQuery = Type.Object({ code: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * The link in a verification mail. Opening it (GET) changes nothing: mail scanners fetch links
 * before people do, and one that verified on GET would let an attacker's account for someone
 * else's address be verified by that address's own scanner. The page asks for one click, a form
 * that POSTs the code; API clients POST `{"code"}` as JSON.
 */
export const verifyEmailRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const verify = (code: string) => verifyEmail(deps, code);
  // Only in this plugin's scope: everywhere else a form body is read as JSON (a 422), as FastAPI does.
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get(
    '/v1/auth/verify-email',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'The page a verification mail links to: one button confirms the address',
        querystring: CodeQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) =>
      sendPage(
        reply,
        200,
        'Confirm your e-mail address',
        `<form method="post" action="/v1/auth/verify-email">
<input type="hidden" name="code" value="${escapeHtml(request.query.code)}">
<button type="submit">Confirm my e-mail address</button>
</form>`,
      ),
  );

  app.post(
    '/v1/auth/verify-email',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'Verify an e-mail address with the code a verification mail carries',
        consumes: ['application/json', FORM_TYPE],
        body: CodeQuery,
        response: {
          200: Type.Object({ detail: Type.String(), email: Type.String() }),
          400: ErrorDetail,
          422: ValidationErrorBody,
        },
      },
    },
    async (request, reply) => {
      const fromForm = (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM_TYPE);
      if (!fromForm) return verify(request.body.code);
      try {
        const verified = await verify(request.body.code);
        return sendPage(
          reply,
          200,
          'E-mail address confirmed',
          `<p>${escapeHtml(verified.email)} is confirmed. You can close this page.</p>`,
        );
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== 'bad_request') throw error;
        return sendPage(reply, 400, 'This link does not work', `<p>${escapeHtml(error.message)}.</p>`);
      }
    },
  );
};

import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type Options as AjvOptions } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { ServiceError } from '../errors.js';
import { AccessLogController } from './access-log.js';
import type { AppOptions } from './app-options.js';
import { registerAuthentication } from './auth.js';
import { handleClientError, handleError } from './errors.js';
import { STRING_FORMATS } from './formats.js';
import { invalidJson, parseJsonBody } from './json-body.js';
import { registerRoutes } from './routes/index.js';
import { ALSO_MULTIPART } from './schema-types.js';
import { registerSecurityHeaders } from './security-headers.js';
import { SESSION_COOKIE } from './session-cookie.js';
import { unstorableTextIssues } from './storable-text.js';
import { DEFAULT_UNREAD_BODY_LIMIT_BYTES, registerUnreadBodyDrain } from './unread-body.js';
import { registerWebApp } from './web-app.js';

export type App = FastifyInstance;

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Builds the HTTP application; it does not listen. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { deps } = options;
  const app = Fastify({
    logger: options.logger,
    bodyLimit: deps.config.bodyLimitBytes,
    // A client gets REQUEST_TIMEOUT_MS to send its whole request (a trickled body is cut with 408)
    // and a silent connection is closed after CONNECTION_TIMEOUT_MS; Node checks every few seconds.
    requestTimeout: deps.config.requestTimeoutMs,
    connectionTimeout: deps.config.connectionTimeoutMs,
    // Node checks `requestTimeout` only while `headersTimeout` is no longer (measured on Node 20).
    http: {
      requestTimeout: deps.config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, deps.config.requestTimeoutMs),
      connectionsCheckingInterval: connectionsCheckingInterval(deps.config.requestTimeoutMs),
    },
    trustProxy: deps.config.trustProxy,
    requestIdHeader: false,
    logController: new AccessLogController({ requestIdLogLabel: 'request_id' }),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // `/v1/chats` and `/v1/chats/` are one route, as FastAPI's slash redirect makes them for its clients.
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    return503OnClosing: true,
    // fastify's own refusals (a malformed path, an over-long parameter) get our error shape too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies and headers are checked strictly (no silent coercion of null to ""); query strings
  // and path parameters arrive as text, so there numbers are coerced from it.
  const strict = newAjv({ coerceTypes: false });
  const coercing = newAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'querystring' || httpPart === 'params' ? coercing : strict).compile(
      schema,
    );
    if (!(schema as Record<string, unknown>)[ALSO_MULTIPART]) return validate;
    // A multipart request's body is read by the handler (streamed files), not by the JSON parser;
    // fastify leaves it null. The handler refuses a JSON request without a body itself.
    const orMultipart = (data: unknown) => {
      if (data === undefined || data === null) return true;
      const valid = validate(data);
      orMultipart.errors = validate.errors;
      return valid;
    };
    orMultipart.errors = null as typeof validate.errors;
    return orMultipart;
  });

  app.removeAllContentTypeParsers();
  const parseJson = (
    _request: unknown,
    body: string,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    if (!/\S/.test(body)) return done(null, undefined);
    const parsed = parseJsonBody(body);
    if (parsed.ok) return done(null, parsed.value);
    done(invalidJson(parsed.offset));
  };
  // Any content type is read as JSON, as FastAPI does: a body that is not JSON is a 422.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('preValidation', async (request) => {
    const issues = [
      ...unstorableTextIssues('path', request.params),
      ...unstorableTextIssues('query', request.query),
      ...unstorableTextIssues('body', request.body),
    ];
    if (issues.length > 0) throw ServiceError.validation(issues);
  });
  app.setErrorHandler(handleError);
  registerUnreadBodyDrain(app, options.unreadBodyLimitBytes ?? DEFAULT_UNREAD_BODY_LIMIT_BYTES);
  registerSecurityHeaders(app);
  registerAuthentication(app, deps.callers, { docsPublic: deps.config.docsPublic });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Question-answering and indexing service',
        version: '0.1.0',
        description:
          "Indexes a team's Google Drive, Confluence and uploaded documents and answers questions from them with citations.",
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'POST /v1/auth/token or /v2/users/register',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description:
              'POST /v1/auth/session (a browser); with it, requests other than GET, HEAD and OPTIONS need this service as their Origin',
          },
        },
      },
    },
  });
  // No validator badge: it would load an image from validator.swagger.io, which the CSP refuses anyway.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null } });
  app.get('/openapi.json', { config: { public: deps.config.docsPublic }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  await registerRoutes(app, options);
  // Last: its not-found handler answers what no route above did (an app page, else the JSON 404).
  await registerWebApp(app, deps.config.webDir);
  return app;
}

/** How often Node looks for requests past their time-out: a tenth of it, between 0.25 and 5 s. */
function connectionsCheckingInterval(requestTimeoutMs: number): number {
  return Math.min(5000, Math.max(250, Math.round(requestTimeoutMs / 10)));
}

function newAjv(options: AjvOptions): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    ...options,
  });
  for (const [name, check] of Object.entries(STRING_FORMATS))
    ajv.addFormat(name, { type: 'string', validate: check });
  return ajv;
}

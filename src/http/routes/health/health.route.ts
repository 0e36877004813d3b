import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppOptions } from '../../app.js';

const Status = Type.Object({ status: Type.String() });

/** Liveness (the process answers) and readiness (so does the database), for operators. */
export const healthRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { ping }) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      logLevel: 'warn',
      schema: { tags: ['operations'], response: { 200: Status } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        response: { 200: Status, 503: Type.Object({ detail: Type.String() }) },
      },
    },
    async (request, reply) => {
      try {
        await ping();
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'database not ready');
        return reply.code(503).send({ detail: 'Database is not answering' });
      }
    },
  );
};

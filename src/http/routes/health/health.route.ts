import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_MESSAGE,
} from '../../../db/database-availability.js';
import type { AppOptions } from '../../app-options.js';

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
        // Orchestrators ask every few seconds: an outage is logged once, by the database's watch.
        request.log.debug({ err: error }, 'database not ready');
        return reply
          .code(503)
          .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
          .send({ detail: DATABASE_UNAVAILABLE_MESSAGE });
      }
    },
  );
};

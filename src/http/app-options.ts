import type { FastifyServerOptions } from 'fastify';
import type { ServiceDependencies } from '../services/dependencies.js';

/** What the app and each route group are built with (a module of its own: routes need it, and the app needs the routes). */
export interface AppOptions {
  readonly deps: ServiceDependencies;
  /** Checks that the database answers, for `/readyz`. */
  readonly ping: () => Promise<void>;
  readonly logger: FastifyServerOptions['logger'];
  /**
   * How much more of a body is read and dropped after an early answer (a 413 while the client is
   * still sending) before the connection is cut; DEFAULT_UNREAD_BODY_LIMIT_BYTES when absent.
   */
  readonly unreadBodyLimitBytes?: number;
}

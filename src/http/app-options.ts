import type { FastifyServerOptions } from 'fastify';
import type { ServiceDependencies } from '../services/dependencies.js';

/** What the app and each route group are built with (a module of its own: routes need it, and the app needs the routes). */
export interface AppOptions {
  readonly deps: ServiceDependencies;
  /** Checks that the database answers, for `/readyz`. */
  readonly ping: () => Promise<void>;
  readonly logger: FastifyServerOptions['logger'];
}

import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../app-options.js';
import { authRoutes } from './auth/auth.route.js';
import { sessionRoutes } from './auth/session.route.js';
import { verifyEmailRoutes } from './auth/verify-email.route.js';
import { webChatRoutes } from './chat/chat.route.js';
import { chatappRoutes } from './chatapp/chatapp.route.js';
import { chatappInstallRoutes } from './chatapp/chatapp-install.route.js';
import { chatRoutes } from './chats/chats.route.js';
import { connectorRoutes } from './connectors/connectors.route.js';
import { documentRoutes } from './documents/documents.route.js';
import { driveRoutes } from './drive/drive.route.js';
import { healthRoutes } from './health/health.route.js';
import { jobRoutes } from './jobs/jobs.route.js';
import { oauthProxyRoutes } from './oauth-proxy/oauth-proxy.route.js';
import { searchRoutes } from './search/search.route.js';
import { teamRoutes } from './teams/teams.route.js';
import { userRoutes } from './users/users.route.js';
import { wikiRoutes } from './wiki/wiki.route.js';

export async function registerRoutes(app: FastifyInstance, options: AppOptions): Promise<void> {
  await app.register(healthRoutes, options);
  await app.register(userRoutes, options);
  await app.register(authRoutes, options);
  await app.register(sessionRoutes, options);
  await app.register(verifyEmailRoutes, options);
  await app.register(connectorRoutes, options);
  await app.register(oauthProxyRoutes, options);
  await app.register(chatRoutes, options);
  await app.register(wikiRoutes, options);
  await app.register(driveRoutes, options);
  await app.register(documentRoutes, options);
  await app.register(jobRoutes, options);
  await app.register(chatappRoutes, options);
  await app.register(chatappInstallRoutes, options);
  await app.register(searchRoutes, options);
  await app.register(webChatRoutes, options);
  await app.register(teamRoutes, options);
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { installSlackApp } from '../../../services/install-slack-app.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';

const InstallBody = Type.Object({
  code: Type.String({
    minLength: 1,
    maxLength: 1024,
    description: "the `code` Slack's OAuth v2 redirect brought back",
  }),
});

const InstallView = Type.Object({
  status: Type.Literal('installed'),
  connector_id: Type.Integer(),
  slack_team_id: Type.String(),
  slack_team_name: Type.Union([Type.String(), Type.Null()]),
});

/** "Add to Slack" for a signed-in user; a plugin of its own: the events endpoint parses bodies its own way. */
export const chatappInstallRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/chatapp/install',
    {
      schema: {
        tags: ['chatapp'],
        summary: "Install the Slack bot for the caller's team with an OAuth v2 code",
        description:
          "What registration's `chatappCode` does, for a user already signed in: the code is exchanged with Slack (the client secret stays on the server) and the workspace becomes the team's Slack connector. 409 when the workspace belongs to another team; 502 when Slack refuses the code; 503 when SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are not set.",
        security: bearerSecurity,
        body: InstallBody,
        response: withErrors({ 200: InstallView, 409: ErrorDetail, 502: ErrorDetail, 503: ErrorDetail }),
      },
    },
    async (request) => installSlackApp(deps, callerOf(request), request.body.code),
  );
};

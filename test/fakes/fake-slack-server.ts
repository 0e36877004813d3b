import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { LocalHttpServer, readBody, sendJson } from './local-http-server.js';

/**
 * A local stand-in for Slack's Web API that speaks its wire format: `POST /api/<method>` with a
 * form-encoded or JSON body, answered with HTTP 200 and `{"ok": true, …}` or
 * `{"ok": false, "error": "…"}`, or 429 with `Retry-After` when a test asks for it. Point the real
 * `@slack/web-api` client at `url` (it ends with `/api/`, as `slackApiUrl` must).
 */

/** The Slack app a test registers: what `oauth.v2.access` checks client credentials against. */
export interface FakeSlackApp {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly appId?: string;
  /** When set, `oauth.v2.access` refuses a different `redirect_uri` with `bad_redirect_uri`. */
  readonly redirectUri?: string;
}

/** A workspace installation of the app, as an OAuth code exchange returns it. */
export interface FakeSlackInstallation {
  readonly teamId: string;
  readonly teamName: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly botToken: string;
  readonly authedUserId: string;
  readonly scope: string;
}

/** One request the server received. */
export interface RecordedSlackCall {
  /** The Web API method, e.g. `oauth.v2.access`. */
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  /** Form fields (as strings) or the JSON body, merged over query-string parameters. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** A message a bot posted with `chat.postMessage`. */
export interface PostedSlackMessage {
  readonly channel: string;
  readonly threadTs: string | undefined;
  readonly text: string | undefined;
  /** Parsed blocks: form bodies carry them as a JSON string, JSON bodies as an array. */
  readonly blocks: unknown;
  /** The token that authorised the call (bearer header or `token` field). */
  readonly token: string;
  readonly ts: string;
}

/** A person (or bot) of a workspace, as `users.info` describes them. */
export interface FakeSlackUser {
  readonly id: string;
  /** The workspace they belong to; by default every installation's token may look them up. */
  readonly teamId?: string;
  /** Their profile e-mail, as typed (Slack keeps its case); none for bots and some guests. */
  readonly email?: string;
  /** False for an address the user never confirmed; Slack's default is true. */
  readonly emailConfirmed?: boolean;
  readonly name?: string;
  readonly isBot?: boolean;
}

/** A message someone wrote in a channel, for `conversations.replies` to show (`addThreadMessage`). */
export interface FakeSlackChannelMessage {
  readonly channel: string;
  /** The thread it replies in (its parent's `ts`); absent for a message of the channel itself. */
  readonly threadTs?: string;
  /** The author; a bot's messages have its bot user here and `botId`. */
  readonly user?: string;
  readonly botId?: string;
  readonly text: string;
  /** Later than every earlier one by default. */
  readonly ts?: string;
}

interface StoredChannelMessage {
  readonly threadTs: string | undefined;
  readonly user: string | undefined;
  readonly botId: string | undefined;
  readonly text: string;
  readonly ts: string;
}

/** The history scope `conversations.replies` needs, by the conversation id's kind. */
const HISTORY_SCOPES: Readonly<Record<string, readonly string[]>> = {
  C: ['channels:history'],
  G: ['groups:history', 'mpim:history'],
  D: ['im:history'],
};

type SlackAnswer = { status: number; headers?: Record<string, string>; body: Record<string, unknown> };

interface ScriptedFailure {
  remaining: number;
  answer: SlackAnswer;
}

export class FakeSlackServer {
  /** Every request, in arrival order. */
  readonly calls: RecordedSlackCall[] = [];
  /** Every message posted successfully, in order. */
  readonly messages: PostedSlackMessage[] = [];

  private readonly apps = new Map<string, FakeSlackApp>();
  private readonly codes = new Map<string, { clientId: string; installation: FakeSlackInstallation }>();
  private readonly tokens = new Map<string, FakeSlackInstallation>();
  private readonly scripted = new Map<string, ScriptedFailure[]>();
  private readonly users = new Map<string, FakeSlackUser>();
  /** What each channel holds: seeded messages and the bots' posts, by channel id. */
  private readonly channelMessages = new Map<string, StoredChannelMessage[]>();
  private tsCounter = 0;
  /** What the next visit to the authorize page installs, per client id. */
  private readonly pendingInstalls = new Map<string, Partial<FakeSlackInstallation>>();
  /** The authorize page's visits (query parameters), in order. */
  readonly authorizations: Record<string, string>[] = [];

  private constructor(
    private readonly http: LocalHttpServer,
    /** Base URL ending in `/api/`, ready for `SLACK_API_URL`. */
    readonly url: string,
  ) {}

  /** Listens on 127.0.0.1 at a free port. */
  static async start(): Promise<FakeSlackServer> {
    const http = await LocalHttpServer.start();
    const fake = new FakeSlackServer(http, http.url('/api/'));
    http.serve((request, response) => fake.handle(request, response));
    return fake;
  }

  /** Registers the app whose client id and secret `oauth.v2.access` accepts. */
  registerApp(app: FakeSlackApp): void {
    this.apps.set(app.clientId, app);
  }

  /**
   * Issues a one-time OAuth code for `clientId` that installs the app into a workspace; missing
   * fields get fresh Slack-looking ids. The installation's bot token then authorises calls.
   */
  issueCode(
    code: string,
    clientId: string,
    installation: Partial<FakeSlackInstallation> = {},
  ): FakeSlackInstallation {
    const teamId = installation.teamId ?? slackId('T');
    const full: FakeSlackInstallation = {
      teamId,
      teamName: installation.teamName ?? `Workspace ${teamId}`,
      botUserId: installation.botUserId ?? slackId('U'),
      botId: installation.botId ?? slackId('B'),
      botToken:
        installation.botToken ?? `xoxb-${digits(12)}-${digits(13)}-${randomBytes(12).toString('hex')}`,
      authedUserId: installation.authedUserId ?? slackId('U'),
      scope:
        installation.scope ??
        'app_mentions:read,channels:history,chat:write,groups:history,im:history,mpim:history,users:read,users:read.email',
    };
    this.codes.set(code, { clientId, installation: full });
    return full;
  }

  /**
   * `GET /oauth/v2/authorize` on this server, as Slack's "Add to Slack" page: a visit for a
   * registered app (see `approveNextInstall`) redirects at once to `redirect_uri` (or the app's own)
   * with a fresh `code` and the `state`, as a user who clicks "Allow" would; otherwise
   * `error=access_denied`.
   */
  get authorizeUrl(): string {
    return new URL('../oauth/v2/authorize', this.url).href;
  }

  /** The next authorize visit for `clientId` installs the app into this workspace. */
  approveNextInstall(clientId: string, installation: Partial<FakeSlackInstallation> = {}): void {
    this.pendingInstalls.set(clientId, installation);
  }

  /**
   * A workspace user `users.info` describes (a later call with the same id replaces them). An id
   * never added is `user_not_found`. Without the `users:read` scope in its installation a token is
   * refused with `missing_scope`; without `users:read.email` the profile has no `email`, as on Slack.
   */
  addUser(user: FakeSlackUser): FakeSlackUser {
    this.users.set(user.id, user);
    return user;
  }

  /**
   * A message someone wrote, as `conversations.replies` then shows it: in the thread `threadTs`,
   * or (without one) in the channel, where it can start a thread. Bots' `chat.postMessage` posts
   * are added the same way. Answers its `ts`.
   */
  addThreadMessage(message: FakeSlackChannelMessage): { ts: string } {
    const ts = message.ts ?? this.nextTs();
    this.store(message.channel, {
      threadTs: message.threadTs,
      user: message.user,
      botId: message.botId,
      text: message.text,
      ts,
    });
    return { ts };
  }

  /** Answers the next `times` calls to `method` with 429 and `Retry-After`. */
  rateLimitNext(method: string, retryAfterSeconds = 1, times = 1): void {
    this.script(method, times, {
      status: 429,
      headers: { 'retry-after': String(retryAfterSeconds) },
      body: { ok: false, error: 'ratelimited' },
    });
  }

  /** Answers the next `times` calls to `method` with HTTP 200 and `{ok: false, error}`. */
  failNext(method: string, error: string, times = 1): void {
    this.script(method, times, { status: 200, body: { ok: false, error } });
  }

  /** Answers the next `times` calls to `method` with an HTTP error status (e.g. 503), as an outage would. */
  failNextWithStatus(method: string, status: number, times = 1): void {
    this.script(method, times, { status, body: { ok: false, error: 'service_unavailable' } });
  }

  /** The recorded calls to one method. */
  callsTo(method: string): RecordedSlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /**
   * Forgets calls, the posted-messages record and scripted failures; keeps apps, codes, tokens,
   * users and what the channels hold.
   */
  clearRecords(): void {
    this.calls.length = 0;
    this.messages.length = 0;
    this.scripted.clear();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private store(channel: string, message: StoredChannelMessage): void {
    const messages = this.channelMessages.get(channel) ?? [];
    messages.push(message);
    messages.sort((a, b) => compareTs(a.ts, b.ts));
    this.channelMessages.set(channel, messages);
  }

  private script(method: string, times: number, answer: SlackAnswer): void {
    const queue = this.scripted.get(method) ?? [];
    queue.push({ remaining: times, answer });
    this.scripted.set(method, queue);
  }

  private takeScripted(method: string): SlackAnswer | undefined {
    const queue = this.scripted.get(method);
    const next = queue?.[0];
    if (queue === undefined || next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) queue.shift();
    return next.answer;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/oauth/v2/authorize') return this.authorize(url, response);
    const match = /^\/api\/([\w.]+)$/.exec(url.pathname);
    if (match?.[1] === undefined) {
      return send(response, { status: 404, body: { ok: false, error: 'unknown_method' } });
    }
    const method = match[1];
    const raw = await readBody(request);
    const body = {
      ...Object.fromEntries(url.searchParams),
      ...parseBody(request.headers['content-type'], raw),
    };
    this.calls.push({ method, headers: { ...request.headers }, body });

    const scripted = this.takeScripted(method);
    if (scripted !== undefined) return send(response, scripted);
    if (request.method !== 'POST' && request.method !== 'GET') {
      return send(response, { status: 405, body: { ok: false, error: 'method_not_allowed' } });
    }
    switch (method) {
      case 'oauth.v2.access':
        return send(response, ok(this.oauthV2Access(request.headers, body)));
      case 'auth.test':
        return send(response, ok(this.authTest(request.headers, body)));
      case 'chat.postMessage':
        return send(response, ok(this.chatPostMessage(request.headers, body)));
      case 'users.info':
        return send(response, ok(this.usersInfo(request.headers, body)));
      case 'conversations.replies':
        return send(response, ok(this.conversationsReplies(request.headers, body)));
      default:
        // Slack answers an unknown method with 404 and `unknown_method`.
        return send(response, {
          status: 404,
          body: { ok: false, error: 'unknown_method', req_method: method },
        });
    }
  }

  private authorize(url: URL, response: ServerResponse): void {
    const query = Object.fromEntries(url.searchParams);
    this.authorizations.push(query);
    const clientId = query.client_id ?? '';
    const app = this.apps.get(clientId);
    const redirectUri = query.redirect_uri ?? app?.redirectUri;
    if (app === undefined || redirectUri === undefined || !query.scope) {
      response.writeHead(400, { 'content-type': 'text/html' }).end('<h1>Something went wrong</h1>');
      return;
    }
    const redirect = new URL(redirectUri);
    const installation = this.pendingInstalls.get(clientId);
    if (installation === undefined) {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      this.pendingInstalls.delete(clientId);
      const code = `${digits(12)}.${digits(13)}.${randomBytes(16).toString('hex')}`;
      this.issueCode(code, clientId, installation);
      redirect.searchParams.set('code', code);
    }
    if (query.state !== undefined) redirect.searchParams.set('state', query.state);
    response.writeHead(302, { location: redirect.href }).end();
  }

  private oauthV2Access(
    headers: IncomingHttpHeaders,
    body: Record<string, unknown>,
  ): Record<string, unknown> {
    // Slack takes client credentials as HTTP Basic auth or as body fields.
    const basic = basicCredentials(headers.authorization);
    const clientId = basic?.id ?? stringField(body, 'client_id');
    const clientSecret = basic?.secret ?? stringField(body, 'client_secret');
    if (clientId === undefined) return { ok: false, error: 'invalid_client_id' };
    const app = this.apps.get(clientId);
    if (app === undefined) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== app.clientSecret) return { ok: false, error: 'bad_client_secret' };
    const code = stringField(body, 'code');
    const grant = code === undefined ? undefined : this.codes.get(code);
    if (code === undefined || grant === undefined || grant.clientId !== clientId) {
      return { ok: false, error: 'invalid_code' };
    }
    const redirectUri = stringField(body, 'redirect_uri');
    if (app.redirectUri !== undefined && redirectUri !== undefined && redirectUri !== app.redirectUri) {
      return { ok: false, error: 'bad_redirect_uri' };
    }
    // Codes are single-use, as Slack's are.
    this.codes.delete(code);
    const { installation } = grant;
    this.tokens.set(installation.botToken, installation);
    return {
      ok: true,
      app_id: app.appId ?? 'A0FAKEAPP01',
      authed_user: { id: installation.authedUserId },
      scope: installation.scope,
      token_type: 'bot',
      access_token: installation.botToken,
      bot_user_id: installation.botUserId,
      team: { id: installation.teamId, name: installation.teamName },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  private authTest(headers: IncomingHttpHeaders, body: Record<string, unknown>): Record<string, unknown> {
    const auth = this.authorise(headers, body);
    if ('error' in auth) return auth;
    const { installation } = auth;
    return {
      ok: true,
      url: `https://${installation.teamName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.slack.com/`,
      team: installation.teamName,
      user: 'knowledge-bot',
      team_id: installation.teamId,
      user_id: installation.botUserId,
      bot_id: installation.botId,
      is_enterprise_install: false,
    };
  }

  private chatPostMessage(
    headers: IncomingHttpHeaders,
    body: Record<string, unknown>,
  ): Record<string, unknown> {
    const auth = this.authorise(headers, body);
    if ('error' in auth) return auth;
    const channel = stringField(body, 'channel');
    if (channel === undefined) return { ok: false, error: 'channel_not_found' };
    const text = stringField(body, 'text');
    let blocks: unknown = body.blocks;
    if (typeof blocks === 'string') {
      try {
        blocks = JSON.parse(blocks);
      } catch {
        return { ok: false, error: 'invalid_blocks_format' };
      }
    }
    if (blocks !== undefined && !Array.isArray(blocks)) return { ok: false, error: 'invalid_blocks_format' };
    if ((text === undefined || text === '') && (blocks === undefined || blocks.length === 0)) {
      return { ok: false, error: 'no_text' };
    }
    const threadTs = stringField(body, 'thread_ts');
    const ts = this.nextTs();
    const { installation, token } = auth;
    this.messages.push({ channel, threadTs, text, blocks, token, ts });
    this.store(channel, {
      threadTs,
      user: installation.botUserId,
      botId: installation.botId,
      text: text ?? '',
      ts,
    });
    return {
      ok: true,
      channel,
      ts,
      message: {
        type: 'message',
        user: installation.botUserId,
        bot_id: installation.botId,
        app_id: 'A0FAKEAPP01',
        text: text ?? '',
        ts,
        team: installation.teamId,
        ...(blocks === undefined ? {} : { blocks }),
        ...(threadTs === undefined ? {} : { thread_ts: threadTs, parent_user_id: installation.authedUserId }),
      },
    };
  }

  /** `users.info` (https://api.slack.com/methods/users.info): a user object, trimmed to what bots read. */
  private usersInfo(headers: IncomingHttpHeaders, body: Record<string, unknown>): Record<string, unknown> {
    const auth = this.authorise(headers, body);
    if ('error' in auth) return auth;
    const scopes = new Set(auth.installation.scope.split(','));
    if (!scopes.has('users:read')) {
      return { ok: false, error: 'missing_scope', needed: 'users:read', provided: auth.installation.scope };
    }
    const id = stringField(body, 'user');
    if (id === undefined || id === '') return { ok: false, error: 'user_not_found' };
    const user = this.users.get(id);
    if (user === undefined) return { ok: false, error: 'user_not_found' };
    const teamId = user.teamId ?? auth.installation.teamId;
    const name = user.name ?? id.toLowerCase();
    return {
      ok: true,
      user: {
        id,
        team_id: teamId,
        name,
        deleted: false,
        real_name: name,
        tz: 'Europe/Amsterdam',
        tz_label: 'Central European Time',
        tz_offset: 3600,
        is_admin: false,
        is_owner: false,
        is_primary_owner: false,
        is_restricted: false,
        is_ultra_restricted: false,
        is_bot: user.isBot === true,
        is_app_user: false,
        updated: 1_700_000_000,
        is_email_confirmed: user.emailConfirmed ?? true,
        profile: {
          real_name: name,
          display_name: name,
          real_name_normalized: name,
          display_name_normalized: name,
          ...(user.email !== undefined && scopes.has('users:read.email') ? { email: user.email } : {}),
          image_24: `https://avatars.slack-edge.example/${id}_24.png`,
          image_48: `https://avatars.slack-edge.example/${id}_48.png`,
          team: teamId,
        },
      },
    };
  }

  /**
   * `conversations.replies` (https://api.slack.com/methods/conversations.replies): the thread's
   * parent, then its replies, oldest first, within `oldest`..`latest` (ends included with
   * `inclusive`), `limit` at a time (100 by default, at most 1000) with a cursor to the next page.
   * Needs the `*:history` scope of the conversation's kind (by its id: C, G or D).
   */
  private conversationsReplies(
    headers: IncomingHttpHeaders,
    body: Record<string, unknown>,
  ): Record<string, unknown> {
    const auth = this.authorise(headers, body);
    if ('error' in auth) return auth;
    const channel = stringField(body, 'channel');
    if (channel === undefined || channel === '') return { ok: false, error: 'channel_not_found' };
    const needed = HISTORY_SCOPES[channel.charAt(0)] ?? [];
    const scopes = new Set(auth.installation.scope.split(','));
    if (!needed.some((scope) => scopes.has(scope))) {
      return {
        ok: false,
        error: 'missing_scope',
        needed: needed[0] ?? 'channels:history',
        provided: auth.installation.scope,
      };
    }
    const threadTs = stringField(body, 'ts');
    if (threadTs === undefined || threadTs === '') return { ok: false, error: 'invalid_arguments' };
    const held = this.channelMessages.get(channel) ?? [];
    const parent = held.find((message) => message.ts === threadTs);
    if (parent === undefined) return { ok: false, error: 'thread_not_found' };
    const replies = held.filter((message) => message.threadTs === threadTs && message.ts !== threadTs);
    const inclusive = body.inclusive === true || body.inclusive === 'true' || body.inclusive === '1';
    const latest = stringField(body, 'latest');
    const oldest = stringField(body, 'oldest');
    const inRange = (ts: string) =>
      (latest === undefined || compareTs(ts, latest) < 0 || (inclusive && compareTs(ts, latest) === 0)) &&
      (oldest === undefined || compareTs(ts, oldest) > 0 || (inclusive && compareTs(ts, oldest) === 0));
    const thread = [parent, ...replies].filter((message) => inRange(message.ts));
    const limit = Math.min(Math.max(Number(stringField(body, 'limit') ?? body.limit ?? 100) || 100, 1), 1000);
    const cursor = stringField(body, 'cursor');
    let start = 0;
    if (cursor !== undefined && cursor !== '') {
      const from = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'))?.[1];
      if (from === undefined) return { ok: false, error: 'invalid_cursor' };
      start = thread.findIndex((message) => compareTs(message.ts, from) >= 0);
      if (start < 0) start = thread.length;
    }
    const page = thread.slice(start, start + limit);
    const next = thread[start + limit];
    const lastReply = replies.at(-1);
    return {
      ok: true,
      messages: page.map((message) => ({
        type: 'message',
        ...(message.user === undefined ? {} : { user: message.user }),
        ...(message.botId === undefined ? {} : { bot_id: message.botId, app_id: 'A0FAKEAPP01' }),
        text: message.text,
        ts: message.ts,
        ...(replies.length === 0 ? {} : { thread_ts: threadTs }),
        ...(message === parent
          ? lastReply === undefined
            ? {}
            : {
                reply_count: replies.length,
                reply_users: [...new Set(replies.flatMap((reply) => reply.user ?? []))],
                latest_reply: lastReply.ts,
              }
          : { parent_user_id: parent.user }),
      })),
      has_more: next !== undefined,
      response_metadata: {
        next_cursor: next === undefined ? '' : Buffer.from(`next_ts:${next.ts}`).toString('base64'),
      },
    };
  }

  /** Slack takes the token as a bearer header or a `token` field. */
  private authorise(
    headers: IncomingHttpHeaders,
    body: Record<string, unknown>,
  ): { installation: FakeSlackInstallation; token: string } | { ok: false; error: string } {
    const header = headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : stringField(body, 'token');
    if (token === undefined || token === '') return { ok: false, error: 'not_authed' };
    const installation = this.tokens.get(token);
    if (installation === undefined) return { ok: false, error: 'invalid_auth' };
    return { installation, token };
  }

  private nextTs(): string {
    this.tsCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`;
  }
}

/** Orders Slack timestamps (`seconds.micros`). */
function compareTs(a: string, b: string): number {
  const [aSeconds = '', aMicros = ''] = a.split('.');
  const [bSeconds = '', bMicros = ''] = b.split('.');
  return Number(aSeconds) - Number(bSeconds) || Number(aMicros) - Number(bMicros);
}

function ok(body: Record<string, unknown>): SlackAnswer {
  return { status: 200, body };
}

function send(response: ServerResponse, answer: SlackAnswer): void {
  sendJson(response, answer.status, answer.body, {
    'content-type': 'application/json; charset=utf-8',
    ...answer.headers,
  });
}

function parseBody(contentType: string | undefined, raw: string): Record<string, unknown> {
  if (raw === '') return {};
  if (contentType?.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (header?.startsWith('Basic ') !== true) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

function slackId(prefix: string): string {
  return `${prefix}0${randomBytes(5).toString('hex').toUpperCase()}`;
}

function digits(count: number): string {
  return Array.from({ length: count }, () => Math.floor(Math.random() * 10)).join('');
}

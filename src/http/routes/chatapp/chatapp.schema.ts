import { type Static, Type } from 'typebox';
import { Nullable } from '../../schema-types.js';

/**
 * A string field that also takes an integer: Slack sends `event_time` as a number though the
 * spec's table says string, and the original (pydantic 1) coerced it. A type list, not `anyOf`,
 * keeps a bad value to one validation issue.
 */
const StringOrInteger = (options: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<string | number | null>({ type: ['string', 'integer', 'null'], ...options }));

/**
 * The `event` of an `event_callback` (Slack Events API). Only `type` is sure: in other event
 * types `user` and `channel` are objects, so they are not typed here, and fields Slack adds
 * later pass through.
 */
export const ChatappEventSchema = Type.Object(
  {
    type: Type.String({ maxLength: 255, description: '`app_mention`, `message`, …' }),
    text: Nullable.String({ description: 'with mentions as `<@U…>` and `&`, `<`, `>` escaped' }),
    user: Type.Optional(Type.Unknown({ description: 'the author, a user id in message events' })),
    ts: Nullable.String({ maxLength: 255 }),
    channel: Type.Optional(Type.Unknown({ description: 'a channel id in message events' })),
    channel_type: Nullable.String({ maxLength: 255, description: '`im` for a direct message' }),
    thread_ts: Nullable.String({ maxLength: 255 }),
    bot_id: Nullable.String({ maxLength: 255 }),
    subtype: Nullable.String({ maxLength: 255 }),
    team: Nullable.String({ maxLength: 255 }),
    event_ts: Nullable.String({ maxLength: 255 }),
  },
  { additionalProperties: true },
);

/** The chat application event envelope (spec 2.8); only `type` is required, as the original had it. */
export const ChatappEnvelopeBody = Type.Object(
  {
    type: Type.String({ maxLength: 255, description: '`url_verification` or `event_callback`' }),
    token: Nullable.String({
      maxLength: 1024,
      description: "Slack's deprecated verification token: not used, the signature is checked instead",
    }),
    team_id: Nullable.String({ maxLength: 255, description: 'the Slack workspace' }),
    context_team_id: Nullable.String({ maxLength: 255 }),
    context_enterprise_id: Nullable.String({ maxLength: 255 }),
    api_app_id: Nullable.String({ maxLength: 255 }),
    event_id: Nullable.String({
      maxLength: 255,
      description: 'unique per event: deliveries are de-duplicated by it',
    }),
    event_time: StringOrInteger({ description: 'Unix seconds, as Slack sends it (an integer) or as text' }),
    event_context: Nullable.String({ maxLength: 4096 }),
    is_ext_shared_channel: Nullable.Boolean({
      description: 'asked in a channel shared with another organisation: the bot declines to answer there',
    }),
    challenge: Nullable.String({ maxLength: 1024, description: 'with `url_verification`: echoed back' }),
    // A type list rather than a union with null: one validation issue per bad field, not two.
    event: Type.Optional(
      Type.Unsafe<Static<typeof ChatappEventSchema> | null>({
        ...ChatappEventSchema,
        type: ['object', 'null'],
      }),
    ),
  },
  { additionalProperties: true },
);

export const ChallengeResponse = Type.Object({ challenge: Type.String() });

export const EventAcknowledgement = Type.Object({
  ok: Type.Literal(true),
  status: Type.String({
    description:
      '`queued` (answer coming in the thread), `duplicate` (already received), `ignored` (not a question for the bot) or `unknown_workspace`',
  }),
});

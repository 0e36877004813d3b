import fc from 'fast-check';

/** Strings that have broken services before: control characters, lone surrogates, injections, look-alikes. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\r\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '\ufeff',
  '\u202eevil',
  '\u2028\u2029',
  '🙂👍🏽👨‍👩‍👧',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '𝕳𝖊𝖑𝖑𝖔',
  'ﷺ',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  '1e309',
  '{}',
  '[]',
  '"',
  '\\',
  "'; DROP TABLE users; --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '%',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, meant literally
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'https://127.0.0.1:1/',
  'a@b',
  '@',
];

/** Numbers at the edges: int32, int64 and float limits, negative zero, fractions. */
export const EDGE_NUMBERS: readonly number[] = [
  0,
  -0,
  0.5,
  -1,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  2 ** 63,
  -(2 ** 63),
  1e20,
  -1e20,
  1e308,
  Number.MIN_VALUE,
];

const utf16Unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Any text: graphemes, any code point, or raw UTF-16 units (lone surrogates included), short or (optionally) huge. */
export function anyText(maxLength = 64, withHuge = true): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.string({ maxLength }), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength }), weight: 2 },
    { arbitrary: fc.string({ unit: utf16Unit, maxLength }), weight: 1 },
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 2 },
    ...(withHuge ? [{ arbitrary: hugeText(), weight: 1 }] : []),
  );
}

/** Text for a field limited to `limit` characters: mostly any text within `typical`, rarely at the limit or far beyond. */
export function limitedText(limit: number, typical = Math.min(limit, 100)): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: anyText(typical, false), weight: 28 },
    { arbitrary: textAroundLimit(limit), weight: 1 },
    { arbitrary: hugeText(), weight: 1 },
  );
}

/** Strings far beyond any field limit (up to 20 000 characters), cheap to generate. */
export function hugeText(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.integer({ min: 256, max: 20_000 }))
    .map(([piece, length]) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length));
}

/** A string whose length sits right at a limit: one under, at, one over. */
export function textAroundLimit(limit: number): fc.Arbitrary<string> {
  return fc.constantFrom(limit - 1, limit, limit + 1).map((length) => 'x'.repeat(Math.max(0, length)));
}

/** Nested arrays or objects, deeper than any schema expects. */
export function deeplyNested(maxDepth = 1000): fc.Arbitrary<unknown> {
  return fc.tuple(fc.integer({ min: 1, max: maxDepth }), fc.boolean()).map(([depth, asObject]) => {
    let value: unknown = asObject ? { leaf: true } : [0];
    for (let level = 0; level < depth; level++) value = asObject ? { nested: value } : [value];
    return value;
  });
}

/** A JSON value of the wrong kind for any field: null, booleans, edge numbers, odd strings, containers. */
export function wrongValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(...EDGE_NUMBERS),
    anyText(),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    deeplyNested(),
  );
}

/** The shape of a JSON record: a valid-looking arbitrary for each field, and which fields are required. */
export interface RecordShape {
  readonly fields: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  readonly required: readonly string[];
}

/** Records of the shape: every required field, some optional ones, all with values of the right kind. */
export function validRecord(shape: RecordShape): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(shape.fields as Record<string, fc.Arbitrary<unknown>>, {
    requiredKeys: [...shape.required],
  });
}

const ABSENT = Symbol('absent');

/** Records of the shape where each field may be valid, absent, null or of a wrong kind, plus unknown extra fields. */
export function mutatedRecord(shape: RecordShape): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(shape.fields).map(([name, valid]) =>
    fc
      .oneof(
        { arbitrary: valid, weight: 3 },
        { arbitrary: fc.constant(ABSENT), weight: 1 },
        { arbitrary: fc.constant(null), weight: 1 },
        { arbitrary: wrongValue(), weight: 2 },
      )
      .map((value) => [name, value] as const),
  );
  const extras = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  return fc.tuple(fc.tuple(...fields), extras).map(([entries, extra]) => {
    const record: Record<string, unknown> = { ...extra };
    for (const [name, value] of entries) {
      if (value === ABSENT) delete record[name];
      else record[name] = value;
    }
    return record;
  });
}

/** Texts that are almost JSON, or JSON with a twist the parser must survive. */
export const MALFORMED_JSON: readonly string[] = [
  '{',
  '}',
  '{"a":',
  '{"a":1,}',
  '[1,]',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '{"a" 1}',
  'NaN',
  'Infinity',
  '01',
  '-',
  '1.',
  '.5',
  '"\\x"',
  '"\\u12"',
  '"\\ud800"',
  '"unterminated',
  '"raw\u0001control"',
  '\ufeff{}',
  'tru',
  'nul',
  '1e99999',
  '-1e99999',
  '123456789012345678901234567890',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(12_000)}1${'}'.repeat(12_000)}`,
  '\u0000',
  '   ',
  '\r\n\r\n',
];

/** What a request body is: a JSON value, raw text, raw bytes, or nothing at all. */
export type BodyCase =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'none' };

/** Content types a client might send, sensible or not. */
export const CONTENT_TYPES: readonly string[] = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/JSON',
  'application/vnd.api+json',
  'text/plain',
  'text/plain; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '*/*',
  'garbage',
  ';;;',
  'application/json; boundary=',
  '',
];

/** A content type: a known one, a random one, or none. */
export function contentType(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 4 },
    { arbitrary: headerValue(60), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
  );
}

/** Request bodies of every kind; records of `shape` (with mutated fields) when the endpoint has one. */
export function bodyCase(shape?: RecordShape): fc.Arbitrary<BodyCase> {
  const values = [
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 3 },
    { arbitrary: wrongValue(), weight: 2 },
    ...(shape === undefined
      ? []
      : [
          { arbitrary: mutatedRecord(shape), weight: 6 },
          { arbitrary: validRecord(shape), weight: 1 },
        ]),
  ];
  return fc.oneof(
    { arbitrary: fc.oneof(...values).map((value) => ({ kind: 'json' as const, value })), weight: 6 },
    {
      arbitrary: fc
        .oneof(
          fc.constantFrom(...MALFORMED_JSON),
          anyText(200),
          fc.jsonValue().map((value) => JSON.stringify(value) ?? ''),
          // Valid JSON cut short at a random place.
          fc
            .tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat())
            .map(([value, cut]) => (JSON.stringify(value) ?? '').slice(0, cut % 40)),
        )
        .map((text) => ({ kind: 'text' as const, text })),
      weight: 3,
    },
    {
      arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
      weight: 1,
    },
    { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
  );
}

/** Encodes a body case into the bytes sent; undefined for no body. */
export function encodeBody(body: BodyCase): Uint8Array | undefined {
  switch (body.kind) {
    case 'json':
      return Buffer.from(JSON.stringify(body.value) ?? 'null', 'utf8');
    case 'text':
      return Buffer.from(body.text, 'utf8');
    case 'bytes':
      return body.bytes;
    case 'none':
      return undefined;
  }
}

const headerCharacter = fc
  .oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 12 },
    { arbitrary: fc.integer({ min: 0x80, max: 0xff }), weight: 1 },
    { arbitrary: fc.constant(0x09), weight: 1 },
  )
  .map((code) => String.fromCharCode(code));

/** A header value that fetch accepts (Latin-1, no CR, LF or NUL), possibly odd. */
export function headerValue(maxLength = 64): fc.Arbitrary<string> {
  return fc.string({ unit: headerCharacter, maxLength });
}

/** An Authorization header that is not a valid token of this service; `undefined` sends none. */
export function garbageAuthorization(): fc.Arbitrary<string | undefined> {
  const token = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
    minLength: 43,
    maxLength: 43,
  });
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer  ', 'Basic dXNlcjpwYXNz', 'Token abc', 'bearer', 'null'),
    headerValue(80),
    headerValue(80).map((value) => `Bearer ${value}`),
    token.map((value) => `Bearer kat_${value}`),
    token.map((value) => `bearer   kat_${value}   `),
    token.map((value) => `Bearer kat_${value} extra`),
    fc.integer({ min: 1_000, max: 8_000 }).map((length) => `Bearer ${'a'.repeat(length)}`),
  );
}

/** x-request-id values: well-formed ones the service echoes, and others it replaces. */
export function requestId(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.stringMatching(/^[\w.:-]{1,128}$/),
    headerValue(200),
    fc.constantFrom('', ' ', 'a b', 'x'.repeat(129), '../../', '\u00ff'),
  );
}

/** A path segment as sent (`raw`, already in URL syntax) and as the server should decode it. */
export interface PathSegment {
  readonly raw: string;
  /** The decoded value; undefined when `raw` is not valid percent-encoding. */
  readonly decoded: string | undefined;
}

/**
 * Percent-encodes text as UTF-8, and a lone surrogate as the three bytes a sloppy encoder
 * (WTF-8) would send, which are not valid UTF-8.
 */
export function encodeText(text: string): string {
  return text.replace(/[\s\S]/gu, (character) =>
    character.length === 1 && /[\ud800-\udfff]/.test(character)
      ? [
          0xe0 | (character.charCodeAt(0) >> 12),
          0x80 | ((character.charCodeAt(0) >> 6) & 0x3f),
          0x80 | (character.charCodeAt(0) & 0x3f),
        ]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join('')
      : encodeURIComponent(character),
  );
}

function segmentOf(raw: string): PathSegment {
  try {
    return { raw, decoded: decodeURIComponent(raw) };
  } catch {
    return { raw, decoded: undefined };
  }
}

const URL_SAFE = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@"];

/** Path segments: encoded unicode, dot segments, bad escapes, integers beyond int32 and int64, very long ones. */
export function pathSegment(valid?: fc.Arbitrary<string>): fc.Arbitrary<PathSegment> {
  const encoded = (text: fc.Arbitrary<string>) => text.map((value) => segmentOf(encodeText(value)));
  return fc.oneof(
    ...(valid === undefined ? [] : [{ arbitrary: encoded(valid), weight: 2 }]),
    {
      arbitrary: encoded(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 40 }),
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.constantFrom(...NASTY_STRINGS),
        ),
      ),
      weight: 3,
    },
    {
      arbitrary: fc
        .constantFrom(
          '..',
          '.',
          '%2e%2e',
          '%2E',
          '%2F',
          '..%2F..%2Fetc%2Fpasswd',
          '%5C',
          '%00',
          'a%00b',
          '%',
          '%zz',
          '%4',
          '%ED%A0%80',
          '%C0%AF',
          '%FF',
          '%E2%82',
          '%25',
          '%20',
          '+',
          '%2B',
          "'",
          '*',
          '~',
          '@',
        )
        .map(segmentOf),
      weight: 2,
    },
    {
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            '0',
            '-1',
            '01',
            '+1',
            '1.5',
            '1e3',
            '0x1f',
            'NaN',
            'Infinity',
            '2147483647',
            '2147483648',
            '-2147483649',
            '4294967296',
            '9007199254740993',
            '9223372036854775807',
            '9223372036854775808',
            '99999999999999999999999999',
          ),
          fc.bigInt().map(String),
          fc.integer().map(String),
        )
        .map(segmentOf),
      weight: 2,
    },
    { arbitrary: fc.string({ unit: fc.constantFrom(...URL_SAFE), maxLength: 40 }).map(segmentOf), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom('a', '%C3%A9', '7'), fc.integer({ min: 200, max: 1_200 }))
        .map(([piece, count]) => segmentOf(piece.repeat(count))),
      weight: 1,
    },
  );
}

/** Query values: numbers in and out of range, garbage, bad escapes. */
export function queryValue(valid?: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    ...(valid === undefined ? [] : [valid.map(encodeText)]),
    fc.integer().map(String),
    fc.bigInt().map(String),
    fc.constantFrom('', '-1', '0', '1e3', '1.5', 'NaN', 'true', '%zz', '%', '%00', '99999999999999999999'),
    anyText(20, false).map(encodeText),
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Known-bug avoidance: maps a JSON value so that it no longer contains what `hazards` names.
 * Used only while the bug is open; the regression tests in the fuzz file show each bug.
 */
export function withoutHazards(
  value: unknown,
  hazards: { readonly nul: boolean; readonly loneSurrogates: boolean; readonly hugeIntegers: boolean },
): unknown {
  const clean = (item: unknown): unknown => {
    if (typeof item === 'string') {
      let text = item;
      if (hazards.nul) text = text.replaceAll('\u0000', '\u0001');
      if (hazards.loneSurrogates) text = text.replace(LONE_SURROGATE, '\ufffd');
      return text;
    }
    if (typeof item === 'number' && hazards.hugeIntegers && Math.abs(item) >= 9e18 && Number.isFinite(item)) {
      return Math.sign(item) * 9e18;
    }
    if (Array.isArray(item)) return item.map(clean);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [clean(key) as string, clean(field)]),
      );
    }
    return item;
  };
  return clean(value);
}

const latin1 = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));

/**
 * Bytes of an HTTP/1.x request: mostly well-formed with odd framing (conflicting or wrong
 * Content-Length, bad chunking, Expect), sometimes with broken request lines, control bytes in
 * headers, obsolete line folding or headers beyond the size limit; or plain random bytes.
 */
export function rawHttpRequest(
  targets: readonly string[],
  authorizations: readonly string[],
): fc.Arbitrary<Buffer> {
  const method = fc.oneof(
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), weight: 8 },
    {
      arbitrary: fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE', 'FOO', 'G T', 'get', ''),
      weight: 1,
    },
  );
  const target = fc.oneof(
    { arbitrary: fc.constantFrom(...targets), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        '*',
        '',
        'http://x/healthz',
        '/%zz',
        '/\u00ff',
        '/a b',
        '//',
        '/healthz?a=%',
      ),
      weight: 1,
    },
  );
  const version = fc.oneof(
    { arbitrary: fc.constant('HTTP/1.1'), weight: 8 },
    {
      arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9.9', 'http/1.1', ''),
      weight: 1,
    },
  );
  const header = fc.oneof(
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'content-type',
            'accept',
            'x-request-id',
            'cookie',
            'x-forwarded-for',
            'origin',
            'x-a',
          ),
          headerValue(60),
        )
        .map(([name, value]) => `${name}: ${value}\r\n`),
      weight: 6,
    },
    {
      arbitrary: fc
        .constantFrom(...authorizations, 'Bearer x', '', 'Basic Og==')
        .map((value) => `authorization: ${value}\r\n`),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(
          'content-length: -1',
          'content-length: 99999999999999999999',
          'content-length: 5, 6',
          'content-length: 0x10',
          'transfer-encoding: chunked',
          'transfer-encoding: chunked, gzip',
          'transfer-encoding: gzip',
          'expect: 100-continue',
          'expect: 999-nope',
          'connection: keep-alive',
          'connection: upgrade',
          'upgrade: websocket',
          'content-encoding: gzip',
          'host: ',
        )
        .map((line) => `${line}\r\n`),
      weight: 2,
    },
    {
      arbitrary: fc.oneof(
        fc.string({ unit: latin1, maxLength: 60 }),
        fc
          .tuple(fc.constantFrom('x-a', 'content-type'), fc.string({ unit: latin1, maxLength: 40 }))
          .map(([name, value]) => `${name}: ${value}\r\n`),
        fc.constantFrom(
          '\n',
          ' folded: continuation\r\n',
          'no-colon\r\n',
          ': empty-name\r\n',
          `x-huge: ${'h'.repeat(20_000)}\r\n`,
        ),
      ),
      weight: 1,
    },
  );
  const body = fc.oneof(
    fc.constant(''),
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? ''),
    fc.constantFrom(
      '{}',
      '{"chat_id":"c","messages":[]}',
      '0\r\n\r\n',
      '5\r\nhello\r\n0\r\n\r\n',
      'zz\r\n',
      'ffffffffffffffff\r\n',
    ),
    anyText(100, false),
  );
  const framing = fc.constantFrom('length', 'length', 'none', 'short', 'long');
  const structured = fc
    .tuple(method, target, version, fc.array(header, { maxLength: 5 }), body, framing)
    .map(([verb, path, http, headers, text, frame]) => {
      const payload = Buffer.from(text, 'utf8');
      const length = {
        length: payload.length,
        none: undefined,
        short: Math.max(0, payload.length - 1),
        long: payload.length + 10,
      }[frame];
      const lengthHeader = length === undefined ? '' : `content-length: ${length}\r\n`;
      const head = `${verb} ${path} ${http}\r\nhost: 127.0.0.1\r\n${lengthHeader}${headers.join('')}\r\n`;
      return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
    });
  return fc.oneof(
    { arbitrary: structured, weight: 9 },
    { arbitrary: fc.uint8Array({ maxLength: 512 }).map((array) => Buffer.from(array)), weight: 1 },
  );
}

import fc from 'fast-check';

/** A lowercase UUID that names nothing in any test database. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Percent-encodes every byte of a string's UTF-8 form that is not unreserved (RFC 3986). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * What Node's client will put on a request line: characters outside `!`…`ÿ` (space, controls,
 * anything past Latin-1) are percent-encoded as UTF-8; everything else goes as it is.
 */
export const wireSafe = (path: string): string =>
  path.replace(/[^\u0021-\u00ff]/gu, (char) => percentEncode(char));

/** Percent-encodes raw bytes, so a URL can carry byte sequences that are not UTF-8. */
export const percentBytes = (bytes: Uint8Array): string =>
  [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Nested arrays `[[[…]]]`, `depth` deep, as JSON text. */
export const deepArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Nested objects `{"a":{"a":…}}`, `depth` deep, as JSON text. */
export const deepObjects = (depth: number, leaf = '1'): string =>
  `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** Byte sequences that are not valid UTF-8: stray continuation, overlong, truncated, surrogates. */
export const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xc3],
];

/** Strings chosen to break parsers, validators and SQL: control characters, odd Unicode, SQL. */
const TRICKY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'Fuzz name\u0000with NUL',
  'ab\u0000',
  '\t\n\r',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  "'; drop table users; --",
  "' or '1'='1",
  '%_\\',
  '\\',
  '%',
  '$1',
  '😀'.repeat(20),
  'e\u0301'.repeat(12),
  '\u202Eabcdefghij',
  '\ud800abcdefgh',
  '\udfffabcdefgh',
  'ＡＢＣＤＥＦＧＨＩ',
  '\uFEFFabcdefgh',
  'a'.repeat(41),
  'a'.repeat(256),
  'a'.repeat(5000),
  ' '.repeat(50),
  '00000000-0000-0000-0000-000000000000',
  UNKNOWN_ID.toUpperCase(),
  UNKNOWN_ID.replace(/-/g, ''),
  `{${UNKNOWN_ID}}`,
  `${UNKNOWN_ID}\u0000`,
  'accepted',
  'ACCEPTED',
  'all-hands',
  'ALL_HANDS',
  'one-on-one',
  '2099-01-01',
  '2000-01-01T00:00:00Z',
  '2099-02-30T00:00:00Z',
  '2099-13-01T00:00:00Z',
  '2099-W01-1',
  '2099-001',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '2099-01-01T00:00:00+99:99',
  '1e3',
  '0x10',
  '-0',
  'NaN',
  'Infinity',
  'x@y',
  'a@b.c',
  '"quoted"@example.com',
  'jöe@example.com',
  'user@[127.0.0.1]',
  `${'a'.repeat(250)}@example.com`,
  'javascript:alert(1)',
  '<script>alert(1)</script>',
  '../../etc/passwd',
];

/** Numbers at and past every boundary the service knows (Int32, pages, lengths). */
const TRICKY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  1.5,
  100,
  101,
  2_147_483_647,
  2_147_483_648,
  -2_147_483_649,
  Number.MAX_SAFE_INTEGER,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

/** Any JSON value a field might wrongly receive: tricky strings and numbers, wrong types, depth. */
export const fuzzJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(...TRICKY_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...TRICKY_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [[]], {}) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 50 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 1000 })
      .map((depth) => JSON.parse(deepArrays(depth)) as unknown),
  },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 1000 }).map((depth) => JSON.parse(deepObjects(depth)) as unknown),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom<unknown>(UNKNOWN_ID, 'x', 1, null, {}), {
        minLength: 1,
        maxLength: 20,
      })
      .chain((items) => fc.nat({ max: 3 }).map((times) => Array(times * 400).fill(items[0]))),
  },
);

/** A string value for a query parameter or a path segment, already percent-encoded or raw. */
export const fuzzQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '20',
    '100',
    '101',
    '-1',
    '-0',
    '+5',
    ' 5 ',
    '%205%20',
    '1e3',
    '0x10',
    '0b1',
    '1.0',
    '1.5',
    '١٢',
    '99999999999999999999999',
    '2147483647',
    '2147483648',
    '-2147483649',
    'NaN',
    'Infinity',
    'null',
    '%',
    '%zz',
    '%E0%A4%A',
    '%00',
    '%FF%FE',
    '%C0%AF',
    '%%%',
    '%2',
    '+',
    '%2B',
    'ab',
    'a%00b',
    'us',
    'Test',
    '%25_%5C',
    '%F0%9F%98%80%F0%9F%98%80',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map(percentEncode),
  fc.uint8Array({ maxLength: 12 }).map(percentBytes),
  fc.integer().map(String),
  fc.nat({ max: 3000 }).map((n) => 'q'.repeat(n)),
);

/**
 * An address for a fresh account, in one of the shapes mail systems accept: plain, sub-addressed,
 * with a non-ASCII (RFC 6531) or a quoted local part, or a punycode domain.
 */
export const emailLike = (local: string): fc.Arbitrary<string> =>
  fc
    .constantFrom(
      (l: string) => `${l}@example.com`,
      (l: string) => `${l}@example.com`,
      (l: string) => `${l}@example.com`,
      (l: string) => `${l}+tag@example.com`,
      (l: string) => `${l}ö@example.com`,
      (l: string) => `"${l}"@example.com`,
      (l: string) => `${l}@xn--bcher-kva.example`,
    )
    .map((shape) => shape(local));

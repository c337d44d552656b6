import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { deepArrays, deepObjects, INVALID_UTF8, percentBytes, percentEncode } from './fuzz-values';

/** A request body as it goes on the wire, with the headers that describe it. */
export interface WireBody {
  headers: Record<string, string>;
  payload: Buffer | undefined;
}

const JSON_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=garbage',
  'application/json;;;',
  'application/vnd.api+json',
  'application/ld+json',
  'text/json',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  'application/json, text/plain',
  'garbage',
  '',
];

const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded; charset=utf-16',
  'application/x-www-form-urlencoded; charset=nonsense',
  'Application/X-WWW-Form-Urlencoded',
];

/** Top-level fields as form pairs: scalars as text, arrays as repeated keys, objects as JSON. */
export function formPairs(value: unknown): Array<[string, string]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [['', JSON.stringify(value) ?? '']];
  }
  const pairs: Array<[string, string]> = [];
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(field)) {
      for (const item of field) {
        pairs.push([key, typeof item === 'string' ? item : (JSON.stringify(item) ?? '')]);
      }
    } else if (field !== null && typeof field === 'object') {
      for (const [inner, innerValue] of Object.entries(field as Record<string, unknown>)) {
        pairs.push([`${key}[${inner}]`, String(innerValue)]);
      }
    } else {
      pairs.push([key, field === null ? '' : String(field)]);
    }
  }
  return pairs;
}

/** How form pairs are spelled: strict percent-encoding, `+` for spaces, raw bytes, or garbage. */
type FormSpelling = 'strict' | 'plus' | 'raw' | 'garbage' | 'latin1';

function encodeForm(pairs: Array<[string, string]>, spelling: FormSpelling, noise: number): Buffer {
  const encodePart = (text: string): string => {
    switch (spelling) {
      case 'plus':
        return percentEncode(text).replace(/%20/g, '+');
      case 'raw':
        return text.replace(/[&=%]/g, (c) => percentEncode(c));
      case 'latin1':
        return [...text]
          .map((c) =>
            c.charCodeAt(0) < 256 ? percentBytes(Uint8Array.of(c.charCodeAt(0))) : '%3F',
          )
          .join('');
      case 'garbage':
        return `${percentEncode(text)}${['%', '%zz', '%E0%A4%A', '%FF', '%C0%AF', '%%'][noise % 6]}`;
      default:
        return percentEncode(text);
    }
  };
  const text = pairs
    .map(([key, value]) =>
      noise % 7 === 3 ? encodePart(key) : `${encodePart(key)}=${encodePart(value)}`,
    )
    .join(noise % 5 === 4 ? '&&' : '&');
  return Buffer.from(text, 'utf8');
}

/** A multipart/form-data body, well formed or broken in one of several ways. */
type MultipartFlaw =
  | 'none'
  | 'no-boundary'
  | 'wrong-boundary'
  | 'truncated'
  | 'file-part'
  | 'too-many-parts'
  | 'huge-field'
  | 'garbage'
  | 'bad-boundary-syntax';

function encodeMultipart(pairs: Array<[string, string]>, flaw: MultipartFlaw): WireBody {
  const boundary = `----fuzz${pairs.length}boundary`;
  const parts = [...pairs];
  if (flaw === 'too-many-parts') {
    for (let i = 0; i < 60; i += 1) {
      parts.push([`extra${i}`, 'x']);
    }
  }
  if (flaw === 'huge-field') {
    parts.push(['name', 'n'.repeat(70 * 1024)]);
  }
  const chunks: Buffer[] = parts.map(([key, value]) =>
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="${key.replace(/"/g, '%22')}"\r\n\r\n${value}\r\n`,
    ),
  );
  if (flaw === 'file-part') {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="avatar"; filename="a.bin"\r\ncontent-type: application/octet-stream\r\n\r\n\u0000\u0001binary\r\n`,
      ),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  let payload = Buffer.concat(chunks);
  if (flaw === 'truncated') {
    payload = payload.subarray(0, Math.max(1, Math.floor(payload.length / 2)));
  }
  if (flaw === 'garbage') {
    payload = Buffer.from('this is not multipart at all\r\n--\r\n');
  }
  const contentType = {
    'no-boundary': 'multipart/form-data',
    'wrong-boundary': 'multipart/form-data; boundary=somethingelse',
    'bad-boundary-syntax': `multipart/form-data; boundary="${'x'.repeat(90)}"; boundary=`,
  }[flaw as string];
  return {
    headers: { 'content-type': contentType ?? `multipart/form-data; boundary=${boundary}` },
    payload,
  };
}

/** Ways to spell a JSON body on the wire (the value itself comes from the route's model). */
export const jsonWire = (value: unknown): fc.Arbitrary<WireBody> =>
  fc.constantFrom(...JSON_TYPES).map(
    (type): WireBody => ({
      headers: type === '' ? {} : { 'content-type': type },
      payload: Buffer.from(JSON.stringify(value) ?? 'undefined', 'utf8'),
    }),
  );

/** The same value form-encoded, with ordinary and odd spellings and charsets. */
export const formWire = (value: unknown): fc.Arbitrary<WireBody> =>
  fc
    .tuple(
      fc.constantFrom(...FORM_TYPES),
      fc.constantFrom<FormSpelling>('strict', 'strict', 'plus', 'raw', 'garbage', 'latin1'),
      fc.nat({ max: 100 }),
    )
    .map(([type, spelling, noise]) => ({
      headers: { 'content-type': type },
      payload: encodeForm(formPairs(value), spelling, noise),
    }));

/** The same value as multipart/form-data, sometimes broken. */
export const multipartWire = (value: unknown): fc.Arbitrary<WireBody> =>
  fc
    .constantFrom<MultipartFlaw>(
      'none',
      'none',
      'none',
      'no-boundary',
      'wrong-boundary',
      'truncated',
      'file-part',
      'too-many-parts',
      'huge-field',
      'garbage',
      'bad-boundary-syntax',
    )
    .map((flaw) => encodeMultipart(formPairs(value), flaw));

const json = (text: string | Buffer, type = 'application/json'): WireBody => ({
  headers: { 'content-type': type },
  payload: Buffer.from(text),
});

/** Bodies that are broken whatever the route expects: bytes, truncation, depth, size, encodings. */
export const malformedWire = (value: unknown): fc.Arbitrary<WireBody> => {
  const text = JSON.stringify(value) ?? 'null';
  return fc.oneof(
    // Truncated JSON.
    fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => json(text.slice(0, cut))),
    // Random bytes under any declared type.
    fc
      .tuple(
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        fc.constantFrom(...JSON_TYPES, ...FORM_TYPES),
      )
      .map(([bytes, type]) => json(Buffer.from(bytes), type)),
    // Deep nesting, as the whole body and inside a field.
    fc
      .tuple(
        fc.constantFrom(1000, 10_000, 100_000),
        fc.boolean(),
        fc.constantFrom('', 'meeting', 'participants', 'name', 'user_id'),
      )
      .map(([depth, arrays, field]) => {
        const deep = arrays ? deepArrays(depth) : deepObjects(depth);
        return json(field ? `{"${field}":${deep}}` : deep);
      }),
    // Huge strings: under, at and over the 1 MiB limit, up to 2 MB.
    fc
      .tuple(
        fc.constantFrom(70_000, 1_040_000, 1_049_000, 1_100_000, 2_000_000),
        fc.constantFrom('name', 'q', 'title', 'user_id', 'password'),
      )
      .map(([size, field]) => json(`{"${field}":"${'x'.repeat(size)}"}`)),
    fc.constantFrom(1_100_000, 2_000_000).map((size) => ({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: Buffer.from(`name=${'y'.repeat(size)}`),
    })),
    // Invalid UTF-8 inside JSON strings and form values.
    fc
      .tuple(
        fc.constantFrom(...INVALID_UTF8),
        fc.constantFrom('name', 'email', 'title', 'user_id', 'refresh_token'),
        fc.boolean(),
      )
      .map(([bytes, field, asForm]) =>
        asForm
          ? {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              payload: Buffer.concat([
                Buffer.from(`${field}=ab`),
                Buffer.from(bytes),
                Buffer.from(`&${field}2=${percentBytes(Uint8Array.from(bytes))}`),
              ]),
            }
          : json(
              Buffer.concat([
                Buffer.from(`{"${field}":"Fuzz user `),
                Buffer.from(bytes),
                Buffer.from('xx"}'),
              ]),
            ),
      ),
    // JSON that is valid but not an object.
    fc
      .constantFrom(
        'null',
        '[]',
        '[{}]',
        '"text"',
        '1',
        'true',
        '\uFEFF{}',
        '{"a":1}{"b":2}',
        '{"a":1,}',
        "{'a':1}",
        '{"__proto__":{"x":1}}',
      )
      .map((t) => json(t)),
    // Compressed bodies, real and fake.
    fc
      .constantFrom('gzip', 'deflate', 'br', 'compress', 'identity', 'gzip, gzip', 'x-unknown')
      .chain((encoding) =>
        fc.boolean().map((real) => ({
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
          payload:
            real && encoding === 'gzip'
              ? gzipSync(text)
              : real && encoding === 'deflate'
                ? deflateSync(text)
                : Buffer.from('not compressed at all'),
        })),
      ),
    // A declared length that the body does not have is left to the HTTP layer; an empty body is not.
    fc.constant<WireBody>({
      headers: { 'content-type': 'application/json' },
      payload: Buffer.alloc(0),
    }),
  );
};

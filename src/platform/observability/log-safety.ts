import { DriverException } from '@mikro-orm/core';

// What must never reach a log line, wherever it hides in an error's text.
const SECRETS: ReadonlyArray<[RegExp, string]> = [
  // PHC strings: `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
  [/\$argon2\w*\$[\w$=,+/.-]*/g, '[hash]'],
  [/\beyJ[\w-]*\.[\w-]+\.[\w-]*/g, '[token]'],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[email]'],
  // Secrets that are addresses' credentials (a calendar feed's): `<prefix>_<64 hex digits>`.
  [/\b[a-z]+_[0-9a-f]{64}\b/g, '[secret]'],
  // Webhook signing secrets (Standard Webhooks): `whsec_<base64>`.
  [/\bwhsec_[A-Za-z0-9+/=]+/g, '[secret]'],
];

/**
 * The text with every password hash, token, e-mail address and secret of an address replaced by
 * a placeholder.
 */
export function scrub(text: string): string {
  let clean = text;
  for (const [pattern, placeholder] of SECRETS) {
    clean = clean.replace(pattern, placeholder);
  }
  return clean;
}

// A statement, as a query layer may put it in front of a driver's message.
const STATEMENT =
  /^\s*(select|insert|update|delete|with|begin|commit|rollback|savepoint|release|set|lock)\b/i;

/**
 * A failed statement's message prefixed with the statement, values inlined (`insert into "users"
 * … values ('…', '$argon2id$…') - terminating connection …`, as knex wrote it under MikroORM 6):
 * only the driver's part is kept. MikroORM 7 (Kysely, pg) passes pg's message as it is
 * (test/db/error-logging.test.ts); this stays for any layer that prefixes it again.
 */
function driverMessage(error: object, message: string): string {
  const fromDatabase = error instanceof DriverException || STATEMENT.test(message);
  return fromDatabase && message.includes(' - ')
    ? message.slice(message.lastIndexOf(' - ') + 3)
    : message;
}

// Fields of driver and HTTP errors that name things, never values (pg's `detail`, `where`,
// `query` and `parameters` do carry values, and are left out).
const SAFE_FIELDS = ['code', 'constraint', 'table', 'column', 'routine', 'severity', 'status'];

/**
 * The log form of an error: type, message and fields that carry no data, the stack's frames, and
 * its cause the same way. Whitelisted, so no SQL, value, hash, token or e-mail gets through.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (typeof error !== 'object' || error === null) {
    return { message: scrub(String(error)) };
  }
  const record = error as Record<string, unknown>;
  const serialized: Record<string, unknown> = {
    type: error.constructor?.name ?? 'Object',
    message: scrub(driverMessage(error, String(record['message'] ?? ''))),
  };
  for (const field of SAFE_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' || typeof value === 'number') {
      serialized[field] = value;
    }
  }
  if (typeof record['stack'] === 'string') {
    serialized['stack'] = record['stack']
      .split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .join('\n');
  }
  const inner = record['cause'] ?? record['originalError'];
  if (inner != null && inner !== error && depth < 3) {
    serialized['cause'] = serializeError(inner, depth + 1);
  }
  return serialized;
}

/**
 * What failed, in a line: the innermost cause of an error (the driver's or the pool's), its type,
 * message and fields that carry no data, without a stack. For failures expected in production,
 * such as a 503, where the stack says nothing new and weighed ~2.5 KB per line.
 */
export function causeOf(error: unknown): Record<string, unknown> {
  let inner = error;
  for (let depth = 0; depth < 4; depth += 1) {
    const next = (inner as { cause?: unknown; originalError?: unknown } | null)?.cause;
    if (next == null || next === inner) {
      break;
    }
    inner = next;
  }
  const serialized = serializeError(inner, 3) as Record<string, unknown>;
  delete serialized['stack'];
  delete serialized['cause'];
  return serialized;
}

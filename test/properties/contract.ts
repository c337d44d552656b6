import { parseJson, type RawRequest, type RawResponse } from './raw-http';

/** Every status the contract allows a REST answer to have. */
export const CONTRACT_STATUSES = new Set([
  200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 422, 429,
]);

/** The REASON vocabulary of `VALIDATION_<FIELD>_<REASON>` (docs/rest-contract.md §2). */
export const VALIDATION_REASONS = [
  'REQUIRED',
  'TOO_SHORT',
  'TOO_LONG',
  'INVALID_EMAIL',
  'INVALID_UUID',
  'INVALID_DATE',
  'INVALID_CHOICE',
  'INVALID_FORMAT',
  'MUST_BE_STRING',
  'MUST_BE_INTEGER',
  'TOO_SMALL',
  'TOO_LARGE',
  'MISMATCH',
  'MUST_BE_FUTURE',
] as const;

/** RFC 6749 §5.2 error codes. */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'slow_down',
  'temporarily_unavailable',
]);

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

/**
 * Text that only an internal failure puts in a body: a stack frame, a module path, SQL, a
 * constraint or driver message, a socket error.
 */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['stack frame', /\bat \S+ \(|\bat (?:async )?\/|\n\s+at /],
  ['file path', /node_modules|\/src\/|\/rest\/|\.ts:\d+|\.js:\d+/],
  ['SQL', /\b(select|insert|update|delete) .*\b(from|into|set|where)\b/i],
  ['constraint', /violates|constraint "|duplicate key/i],
  [
    'driver message',
    /ECONN|invalid byte sequence|invalid input syntax|message format|pg_|knex|mikro-?orm/i,
  ],
  ['JS error', /\b(Type|Range|Reference|Syntax)Error\b|Maximum call stack|Cannot read propert/],
];

/** REST error bodies carry no client text, so the plain words are suspicious there too. */
const REST_ERROR_LEAKS: ReadonlyArray<[string, RegExp]> = [
  ...LEAKS,
  ['stack word', /\bat /],
  ['SQL word', /\bselect |\binsert /i],
];

/** Names of the leaks found in a text. */
export function leaksIn(text: string, strict: boolean): string[] {
  return (strict ? REST_ERROR_LEAKS : LEAKS)
    .filter(([, pattern]) => pattern.test(text))
    .map(([name]) => name);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a REST answer should look like for the route it reached. */
export interface RestExpectation {
  /** The status of success on this route (200 or 201). */
  successStatus: number;
  /** The token endpoint answers errors in the RFC 6749 shape. */
  oauth: boolean;
}

/** The contract problems of one REST answer (empty when it keeps the contract). */
export function restProblems(response: RawResponse, expected: RestExpectation): string[] {
  const problems: string[] = [];
  const { status, text } = response;
  if (!CONTRACT_STATUSES.has(status)) {
    problems.push(`status ${status} is not a contract status`);
  }
  if (status >= 200 && status < 300) {
    if (status !== expected.successStatus && status !== 204) {
      problems.push(`success status ${status}, the route answers ${expected.successStatus}`);
    }
    if (status !== 204 && parseJson(text) === undefined) {
      problems.push('success body is not JSON');
    }
    const leaks = leaksIn(text, false).filter(
      (name) => name === 'stack frame' || name === 'file path',
    );
    if (leaks.length > 0) {
      problems.push(`success body leaks: ${leaks.join(', ')}`);
    }
    return problems;
  }
  const body = parseJson(text);
  const leaks = leaksIn(text, true);
  if (leaks.length > 0) {
    problems.push(`error body leaks: ${leaks.join(', ')}`);
  }
  if (!/json/i.test(String(response.headers['content-type'] ?? ''))) {
    problems.push(`error content-type ${String(response.headers['content-type'])}`);
  }
  if (expected.oauth && status !== 404) {
    const keys = isRecord(body) ? Object.keys(body).sort() : [];
    const shaped =
      isRecord(body) &&
      typeof body['error'] === 'string' &&
      OAUTH_ERRORS.has(body['error']) &&
      typeof body['error_description'] === 'string' &&
      keys.every((key) => ['error', 'error_description', 'error_uri'].includes(key));
    if (!shaped) {
      problems.push('token endpoint error is not an RFC 6749 {error, error_description} body');
    }
    return problems;
  }
  if (!isRecord(body) || Object.keys(body).length !== 1 || !('errors' in body)) {
    problems.push('error body is not {"errors": ...}');
    return problems;
  }
  const errors = body['errors'];
  if (status === 422) {
    if (!isRecord(errors) || Object.keys(errors).length === 0) {
      problems.push('422 body is not {"errors": {field: code}}');
      return problems;
    }
    for (const [field, code] of Object.entries(errors)) {
      const head = (field.split('.')[0] ?? field).toUpperCase();
      const reason = typeof code === 'string' ? code.slice(`VALIDATION_${head}_`.length) : '';
      const valid =
        typeof code === 'string' &&
        code.startsWith(`VALIDATION_${head}_`) &&
        (VALIDATION_REASONS as readonly string[]).includes(reason);
      if (!valid) {
        problems.push(`422 entry ${JSON.stringify(field)}: ${JSON.stringify(code)}`);
      }
    }
    return problems;
  }
  if (typeof errors !== 'string' || !UPPER_SNAKE.test(errors)) {
    problems.push(`error code ${JSON.stringify(errors)} is not UPPER_SNAKE`);
  }
  if (status === 401 && !/^Bearer realm="api"/.test(String(response.headers['www-authenticate']))) {
    problems.push('401 without a WWW-Authenticate: Bearer challenge');
  }
  return problems;
}

/** The kinds of problems (the text before a colon), for grouping violations. */
export const kinds = (problems: string[]): string =>
  problems.map((problem) => problem.split(':')[0]).join(' + ');

/** A short, printable account of a request, for reports. */
export function describeRequest(raw: RawRequest): string {
  const body =
    raw.body === undefined
      ? ''
      : Buffer.from(raw.body).length > 700
        ? `${JSON.stringify(Buffer.from(raw.body).subarray(0, 600).toString('latin1'))}… (${Buffer.from(raw.body).length} bytes)`
        : JSON.stringify(Buffer.from(raw.body).toString('latin1'));
  const path =
    raw.path.length > 200 ? `${raw.path.slice(0, 200)}… (${raw.path.length} chars)` : raw.path;
  const headers = Object.entries(raw.headers ?? {})
    .map(([name, value]) => `${name}: ${value.length > 60 ? `${value.slice(0, 40)}…` : value}`)
    .join('; ');
  return `${raw.method} ${path} [${headers}] ${body}`;
}

interface Violation {
  signature: string;
  problems: string[];
  request: string;
  answer: string;
  size: number;
  occurrences: number;
}

/**
 * Collects contract violations by kind (signature), keeping the smallest example of each, so one
 * run reports every distinct defect instead of stopping at the first.
 */
export class ViolationLog {
  private readonly bySignature = new Map<string, Violation>();

  record(signature: string, problems: string[], request: string, answer: string): void {
    const existing = this.bySignature.get(signature);
    const size = request.length;
    if (existing) {
      existing.occurrences += 1;
      if (size >= existing.size) {
        return;
      }
    }
    this.bySignature.set(signature, {
      signature,
      problems,
      request,
      answer: answer.length > 400 ? `${answer.slice(0, 400)}…` : answer,
      size,
      occurrences: existing ? existing.occurrences : 1,
    });
  }

  get count(): number {
    return this.bySignature.size;
  }

  /** One paragraph per kind of violation, with its smallest example. */
  report(seed: number): string {
    return [...this.bySignature.values()]
      .map(
        (v) =>
          `• ${v.signature} (×${v.occurrences}, seed ${seed})\n  problems: ${v.problems.join(' | ')}\n  request:  ${v.request}\n  answer:   ${v.answer}`,
      )
      .join('\n');
  }
}

/** The run's seed: FUZZ_SEED when set (to replay a report), a fresh one otherwise. */
export function fuzzSeed(): number {
  const fromEnv = Number(process.env['FUZZ_SEED']);
  return Number.isInteger(fromEnv) && process.env['FUZZ_SEED']
    ? fromEnv
    : Date.now() % 2_147_483_647;
}

/** How many cases a property runs: FUZZ_SCALE multiplies the default (e.g. 0.2 for a smoke run). */
export function runsOf(defaultRuns: number): number {
  const scale = Number(process.env['FUZZ_SCALE'] ?? '1');
  return Math.max(1, Math.round(defaultRuns * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

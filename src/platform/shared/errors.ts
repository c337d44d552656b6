import { GraphQLError } from 'graphql';

/**
 * The GraphQL error categories of the REST contract (docs/rest-contract.md §6), carried in
 * `extensions.code`.
 */
export type ErrorCategory =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'QUERY_TOO_LARGE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

/** Why a single input field was refused; the contract's REASON vocabulary. */
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
  'INVALID_TIME_ZONE',
  'INVALID_RECURRENCE',
  'HTTPS_REQUIRED',
  'PRIVATE_ADDRESS',
] as const;

export type ValidationReason = (typeof VALIDATION_REASONS)[number];

export const isValidationReason = (value: unknown): value is ValidationReason =>
  (VALIDATION_REASONS as readonly unknown[]).includes(value);

/** Field path (GraphQL argument path, dot-separated, list indexes as numbers) → reason. */
export type FieldErrors = Record<string, ValidationReason>;

/**
 * An expected failure with a stable code. `extensions.code` is the category, `extensions.reason`
 * the contract's specific code (e.g. `MEETING_NOT_FOUND`), which the REST facade puts on the wire.
 */
export abstract class AppError extends GraphQLError {
  protected constructor(
    readonly category: ErrorCategory,
    readonly reason: string,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(message, { extensions: { code: category, reason, ...extra } });
  }
}

export class UnauthenticatedError extends AppError {
  constructor(reason: 'NOT_AUTHENTICATED' | 'INVALID_TOKEN' | 'INCORRECT_EMAIL_OR_PASSWORD') {
    super('UNAUTHENTICATED', reason, messages[reason]);
  }
}

export class ForbiddenError extends AppError {
  constructor(reason: string, message = 'You are not allowed to do this') {
    super('FORBIDDEN', reason, message);
  }
}

export class NotFoundError extends AppError {
  constructor(reason: string, message = 'Not found') {
    super('NOT_FOUND', reason, message);
  }
}

export class ConflictError extends AppError {
  /** `details` go to `extensions` beside the reason: what the conflict is with. */
  constructor(reason: string, message = 'Conflict', details: Record<string, unknown> = {}) {
    super('CONFLICT', reason, message, details);
  }
}

export class ValidationFailedError extends AppError {
  /** `message` may say more than the fields do, such as what would allow the value. */
  constructor(
    readonly fields: FieldErrors,
    message = 'Invalid input',
  ) {
    super('BAD_USER_INPUT', 'VALIDATION_FAILED', message, { fields });
  }

  static of(field: string, reason: ValidationReason): ValidationFailedError {
    return new ValidationFailedError({ [field]: reason });
  }
}

/**
 * Variables refused before the operation ran: a request error of GraphQL over HTTP (400 to
 * clients of application/graphql-response+json), with the same field errors as the rules'.
 */
export class VariablesRefusedError extends ValidationFailedError {
  constructor(fields: FieldErrors) {
    super(fields);
    // `http` is read by Apollo for the response status (and removed from the answer).
    Object.assign(this.extensions, { http: { status: 400 } });
  }
}

export class TooManyRequestsError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('TOO_MANY_REQUESTS', 'TOO_MANY_REQUESTS', 'Too many attempts; try again later', {
      retryAfter: retryAfterSeconds,
    });
  }
}

const transportMessages = {
  SUBSCRIPTION_NEEDS_WEBSOCKET:
    'Subscriptions are served over WebSocket (graphql-transport-ws) on /graphql',
  OPERATION_NEEDS_HTTP: 'Queries and mutations are served over HTTP on /graphql',
} as const;

/** An operation sent over the other transport: subscriptions over WebSocket, the rest over HTTP. */
export class WrongTransportError extends AppError {
  constructor(reason: keyof typeof transportMessages) {
    super('BAD_USER_INPUT', reason, transportMessages[reason], { http: { status: 400 } });
  }
}

/**
 * A cursor older than the change log keeps (CHANGE_LOG_RETENTION): what happened between it and
 * the oldest kept change is gone, so the client reloads from queries and resumes from there.
 */
export class CursorExpiredError extends AppError {
  constructor() {
    super(
      'BAD_USER_INPUT',
      'CURSOR_EXPIRED',
      'The cursor is older than the change log keeps: reload, then resume from a new cursor',
      { http: { status: 400 } },
    );
  }
}

/**
 * A document outside the trusted documents while they are enforced (GRAPHQL_TRUSTED_DOCUMENTS):
 * coded as Apollo codes its own persisted-query errors (beside PERSISTED_QUERY_NOT_FOUND), which
 * is where a persisted-query client looks.
 */
export class DocumentNotAllowedError extends GraphQLError {
  constructor() {
    super('Only trusted documents may run here: send the id or the text of one', {
      extensions: { code: 'PERSISTED_QUERY_NOT_ALLOWED', http: { status: 400 } },
    });
  }
}

const liveLimits = {
  TOO_MANY_SUBSCRIPTIONS: 'Too many subscriptions on this socket',
  TOO_MANY_CONNECTIONS: 'Too many sockets and event streams open for this user',
} as const;

/** A bound of subscriptions reached: SUBSCRIPTIONS_PER_SOCKET, or SOCKETS_PER_USER. */
export class LiveLimitError extends AppError {
  constructor(reason: keyof typeof liveLimits, limit: number) {
    super('TOO_MANY_REQUESTS', reason, liveLimits[reason], { limit, http: { status: 429 } });
  }
}

/** A GraphQL operation that could answer more records than one request may (see node-limit). */
export class QueryTooLargeError extends AppError {
  constructor(nodes: number, maxNodes: number, message: string) {
    super('QUERY_TOO_LARGE', 'QUERY_TOO_LARGE', message, {
      nodes,
      maxNodes,
      http: { status: 400 },
    });
  }
}

/** A GraphQL operation that could cost more than one request may (MAX_QUERY_COST). */
export class QueryTooCostlyError extends AppError {
  constructor(cost: number, maxCost: number) {
    super(
      'QUERY_TOO_LARGE',
      'QUERY_TOO_COSTLY',
      `The operation could cost up to ${cost}, more than ${maxCost}: ask for smaller slices, ` +
        'fewer aliases, or narrower windows (fewer users, fewer days, a longer step).',
      { cost, maxCost, http: { status: 400 } },
    );
  }
}

/** What a caller's cost budget holds (COST_BUDGET_PER_MINUTE). */
export interface BudgetState {
  limit: number;
  remaining: number;
  /** Seconds until the budget is whole again. */
  resetSeconds: number;
}

/**
 * Refusals in a row after which a caller is refused at once until its budget is whole again
 * (src/platform/graphql/cost-budget.ts): a client that honours Retry-After never meets it.
 */
export const REFUSALS_IN_A_ROW = 3;

/** An operation its caller's budget cannot pay for this minute (COST_BUDGET_PER_MINUTE). */
export class CostBudgetSpentError extends AppError {
  /** `cost`: the operation's, or null when the caller is refused before it is read. */
  constructor(
    readonly cost: number | null,
    readonly budget: BudgetState,
  ) {
    super(
      'TOO_MANY_REQUESTS',
      'COST_BUDGET_SPENT',
      cost === null
        ? `Your budget of ${budget.limit} a minute is spent and you were refused ` +
            `${REFUSALS_IN_A_ROW} times in a row: wait ${budget.resetSeconds} s (Retry-After).`
        : `The operation costs ${cost} and ${budget.remaining} of your ${budget.limit} a ` +
            `minute remain: try again in ${budget.resetSeconds} s, or ask for less.`,
      {
        ...(cost !== null && { cost }),
        budget,
        retryAfter: budget.resetSeconds,
        http: { status: 429 },
      },
    );
  }
}

/** Why an `Idempotency-Key` was refused (docs/rest-contract.md §8). */
export type IdempotencyRefusal =
  | 'IDEMPOTENCY_KEY_INVALID'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE';

const idempotencyRefusals: Record<
  IdempotencyRefusal,
  { category: ErrorCategory; status: number; message: string }
> = {
  IDEMPOTENCY_KEY_INVALID: {
    category: 'BAD_USER_INPUT',
    status: 400,
    message: 'The Idempotency-Key header must be one key of 1 to 255 printable ASCII characters',
  },
  IDEMPOTENCY_KEY_REUSED: {
    category: 'BAD_USER_INPUT',
    status: 422,
    message: 'This Idempotency-Key was sent with another request',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    category: 'CONFLICT',
    status: 409,
    message: 'The first request with this Idempotency-Key has not finished yet',
  },
};

/**
 * A request's `Idempotency-Key` refused: malformed (400), sent before with another request (422),
 * or held by a first request still running (409). `restStatus` is the REST answer's; GraphQL answers
 * it as a request error (`http`).
 */
export class IdempotencyKeyError extends AppError {
  readonly restStatus: number;

  constructor(reason: IdempotencyRefusal) {
    const { category, status, message } = idempotencyRefusals[reason];
    super(category, reason, message, { http: { status } });
    this.restStatus = status;
  }
}

export class ServiceUnavailableError extends AppError {
  /** @param retryAfterSeconds when to try again (the `Retry-After` header), if known. */
  constructor(readonly retryAfterSeconds: number | null = null) {
    // `http` is read by Apollo for the response status (and removed from the answer).
    super('SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable', {
      http: { status: 503 },
    });
  }
}

/**
 * The database cannot be reached, is shutting down, or did not answer in time. Raised where
 * driver and pool errors enter (src/db), so no layer above looks at driver codes or messages;
 * `cause` keeps the driver's error for the logs.
 */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor(override readonly cause: unknown) {
    super();
  }
}

const messages: Record<
  'NOT_AUTHENTICATED' | 'INVALID_TOKEN' | 'INCORRECT_EMAIL_OR_PASSWORD',
  string
> = {
  NOT_AUTHENTICATED: 'Authentication required',
  INVALID_TOKEN: 'The access token is invalid or expired',
  INCORRECT_EMAIL_OR_PASSWORD: 'Incorrect email or password',
};

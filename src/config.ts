import { z } from 'zod';
import { REFRESH_REUSE_INTERVAL } from './platform/auth/tokens';
import { DEFAULT_RESTART_ATTEMPTS } from './platform/postgres/embedded/supervisor';
import { trustProxySetting } from './platform/http/trusted-proxies';
import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from './modules/meeting/meeting.limits';
import {
  WEBHOOK_ENV,
  type WebhookConfig,
  webhookConfigOf,
} from './modules/webhook/webhook.settings';
import { MAIL_ENV, type MailConfig, mailConfigOf } from './modules/mail/mail.settings';
import { bookingHorizonDays } from './modules/resource/resource.settings';
import { feedMaxWaitMs } from './modules/calendar/calendar.settings';
import type { DatabaseConfig } from './platform/postgres/database-config';
import { REPLICA_ENV, replicasOf } from './platform/postgres/replicas/replica.settings';
import { budgetProblem, COST_ENV, costConfigOf } from './platform/graphql/cost.settings';

export const DEFAULT_JWT_SECRET = 'dev-only-signing-secret-change-me';

/**
 * Smallest response body worth compressing, in bytes. Measured (bench/compression-cost.ts): a
 * zlib stream costs ~70-100 µs per body whatever its size, plus ~10 µs per KiB; below ~4 KiB
 * each KiB saved costs 2-10 times more CPU than above, and such a body fits in the first
 * round trip anyway (the initial congestion window is 10 segments, ~14 KB).
 */
const COMPRESSION_THRESHOLD = 4096;

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url().optional())
  .optional();

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8000),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    DATABASE_URL: optionalUrl,
    DATABASE_POOLER: z.enum(['session', 'transaction']).default('session'),
    DATABASE_DIRECT_URL: optionalUrl,
    ...REPLICA_ENV,
    DATA_DIR: z.string().min(1).default('./data'),
    EMBEDDED_RESTART_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(0)
      .max(100)
      .default(DEFAULT_RESTART_ATTEMPTS),
    DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    PUBLIC_URL: optionalUrl,
    JWT_SECRET: z.string().min(16, 'must be at least 16 characters').default(DEFAULT_JWT_SECRET),
    JWT_PRIVATE_KEY: z.string().optional(),
    JWT_ISSUER: z.string().min(1).optional(),
    JWT_AUDIENCE: z.string().min(1).default('meeting-api'),
    ACCESS_TOKEN_TTL: z.coerce.number().int().min(30).max(86_400).default(3600),
    REFRESH_TOKEN_TTL: z.coerce
      .number()
      .int()
      .min(60)
      .max(365 * 86_400)
      .default(30 * 86_400),
    REFRESH_TOKEN_REUSE_INTERVAL: z.coerce
      .number()
      .int()
      .min(0)
      .max(300)
      .default(REFRESH_REUSE_INTERVAL),
    OAUTH_EXTERNAL_ISSUER: z.string().min(1).optional(),
    OAUTH_EXTERNAL_JWKS_URL: optionalUrl,
    OAUTH_EXTERNAL_AUDIENCE: z.string().min(1).optional(),
    GRAPHQL_INTROSPECTION: boolean.optional(),
    GRAPHQL_TRUSTED_DOCUMENTS: z.enum(['off', 'log', 'enforce']).default('off'),
    GRAPHQL_TRUSTED_DOCUMENTS_FILE: z.string().min(1).optional(),
    ...COST_ENV,
    REDIS_URL: optionalUrl,
    RATE_LIMIT_AUTH_PER_IP: z.coerce.number().int().min(1).default(30),
    RATE_LIMIT_AUTH_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    CORS_ORIGINS: z.string().default(''),
    TRUST_PROXY: trustProxySetting,
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    CHANGE_LOG_RETENTION_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 366)
      .default(7 * 24),
    MIGRATE_ON_START: boolean.default(true),
    CLUSTER_WORKERS: z.coerce.number().int().min(0).max(64).default(0),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    METRICS: boolean.default(true),
    METRICS_PATH: z
      .string()
      .regex(/^\/[\w./-]*$/, 'must be a path such as /metrics')
      .default('/metrics'),
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    COMPRESSION: boolean.default(true),
    COMPRESSION_THRESHOLD_BYTES: z.coerce.number().int().min(0).default(COMPRESSION_THRESHOLD),
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
    SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).max(1000).default(20),
    SOCKETS_PER_USER: z.coerce.number().int().min(1).max(1000).default(10),
    SUBSCRIPTION_QUEUE_SIZE: z.coerce.number().int().min(1).max(10_000).default(100),
    MAX_PARTICIPANTS_PER_MEETING: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(DEFAULT_MAX_PARTICIPANTS_PER_MEETING),
    ...WEBHOOK_ENV,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean.default(false),
    ADMIN_EMAILS: z.string().default(''),
    RESOURCE_BOOKING_HORIZON_DAYS: bookingHorizonDays,
    FEED_MAX_WAIT_MS: feedMaxWaitMs,
    ...MAIL_ENV,
  })
  .superRefine((env, ctx) => {
    if (
      env.NODE_ENV === 'production' &&
      !env.JWT_PRIVATE_KEY &&
      env.JWT_SECRET === DEFAULT_JWT_SECRET
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'must be set to a secret of your own in production (or set JWT_PRIVATE_KEY)',
      });
    }
    if (env.DATABASE_POOLER === 'transaction' && !env.DATABASE_DIRECT_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_DIRECT_URL'],
        message:
          'must be set when DATABASE_POOLER=transaction: a direct (session) connection to the ' +
          'same database, for LISTEN and migrations, which a transaction pooler cannot carry',
      });
    }
    if ((env.DATABASE_POOLER === 'transaction' || env.DATABASE_DIRECT_URL) && !env.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'must be set with DATABASE_POOLER=transaction or DATABASE_DIRECT_URL (the embedded ' +
          'database is reached without a pooler)',
      });
    }
    if (env.DATABASE_READ_URLS.length > 0 && !env.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_READ_URLS'],
        message:
          'needs DATABASE_URL: read replicas are standbys of a PostgreSQL server, which the ' +
          'embedded database is not',
      });
    }
    const budget = budgetProblem(env);
    if (budget) {
      ctx.addIssue({ code: 'custom', path: ['COST_BUDGET_PER_MINUTE'], message: budget });
    }
    if (Boolean(env.OAUTH_EXTERNAL_ISSUER) !== Boolean(env.OAUTH_EXTERNAL_JWKS_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['OAUTH_EXTERNAL_JWKS_URL'],
        message: 'OAUTH_EXTERNAL_ISSUER and OAUTH_EXTERNAL_JWKS_URL must be set together',
      });
    }
  });

export type Env = z.infer<typeof schema>;

/** The environment variables the service reads (docs/operations.md's configuration tables explain each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type { DatabaseConfig, Pooler } from './platform/postgres/database-config';

/** The validated configuration of one service instance. */
export interface Config {
  env: Env['NODE_ENV'];
  host: string;
  port: number;
  logLevel: Env['LOG_LEVEL'];
  database: DatabaseConfig;
  publicUrl: string | null;
  introspection: boolean;
  /**
   * The operations /graphql and its subscriptions may run: `off`, any; `log`, any, unknown ones
   * logged; `enforce`, only the REST operations' documents and those of `file` (a manifest).
   */
  trustedDocuments: { mode: Env['GRAPHQL_TRUSTED_DOCUMENTS']; file: string | null };
  /** What GraphQL operations may cost: one at the most, and each caller a minute. */
  cost: ReturnType<typeof costConfigOf>;
  shutdownTimeoutMs: number;
  /**
   * The longest a request takes: its waits for the database (a pooled connection, statements,
   * locks) share this one budget, less a reserve for answering, and end in a 503.
   */
  requestTimeoutMs: number;
  /**
   * How long the change log keeps a change (CHANGE_LOG_RETENTION_HOURS, default 7 days): a client
   * resumes from a cursor up to that old; an older one is refused as CURSOR_EXPIRED.
   */
  changeLogRetentionMs: number;
  migrateOnStart: boolean;
  /** `auto`: readable lines on a terminal outside production, JSON lines otherwise. */
  logFormat: Env['LOG_FORMAT'];
  /** Prometheus metrics: off, or served at `path` on the service's port or on a port of their own. */
  metrics: { enabled: boolean; path: string; port: number | null };
  /** Responses compressed (gzip, br) when the client accepts it and the body is this large. */
  compression: { enabled: boolean; thresholdBytes: number };
  /** OTLP endpoint spans are exported to; null: tracing is not loaded at all. */
  tracingEndpoint: string | null;
  /** Worker processes for `npm run start:cluster`; 0 means one per core. */
  clusterWorkers: number;
  /** Origins allowed to call the API from a browser; empty: same origin only; `*`: any. */
  corsOrigins: string[];
  /**
   * TRUST_PROXY: the balancers whose `X-Forwarded-For` names the client (for limits, logs and
   * metrics); default `loopback`. A request from any other address is its own client.
   */
  trustProxy: readonly string[];
  /**
   * Bounds on GraphQL subscriptions: subscriptions one socket may carry, sockets and event
   * streams one user may hold open on one instance, and events held for a subscriber that does
   * not keep up (one more closes its connection).
   */
  subscriptions: { perSocket: number; socketsPerUser: number; queueSize: number };
  /**
   * The most participants a meeting holds, the owner included: adding past it is refused
   * (MEETING_FULL), and it bounds what a meeting's lists count toward the GraphQL node limit.
   */
  maxParticipantsPerMeeting: number;
  /** ADMIN_EMAILS: accounts with these (lower-cased) addresses become admins when they sign in. */
  adminEmails: readonly string[];
  /**
   * How many days ahead a series' occurrences book its rooms and resources (later ones are booked
   * as time passes); one-off meetings book their time whenever it is.
   */
  resourceBookingHorizonDays: number;
  /** FEED_MAX_WAIT_MS: the longest a calendar feed request waits for its turn (then 503). */
  feedMaxWaitMs: number;
  /** Webhooks: retries, when endpoints are disabled, lanes, targets, the sealing key. */
  webhooks: WebhookConfig;
  /** Mail: SMTP_URL, MAIL_FROM, MAIL_RETRY_SCHEDULE and the rest (docs/mail.md). */
  mail: MailConfig;
  rateLimits: {
    redisUrl: string | null;
    perIp: number;
    perAccount: number;
    windowSeconds: number;
  };
  auth: {
    secret: string;
    privateKeyPem: string | null;
    issuer: string | null;
    audience: string;
    accessTokenTtl: number;
    refreshTokenTtl: number;
    /** Seconds a used refresh token may be traded again (0: strict rotation). */
    refreshReuseInterval: number;
    external: { issuer: string; jwksUrl: string; audience: string | null } | null;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Where the data lives, as the environment says. */
function databaseOf(env: Env): DatabaseConfig {
  return env.DATABASE_URL
    ? {
        kind: 'postgres',
        url: env.DATABASE_URL,
        poolSize: env.DB_POOL_SIZE,
        ...(env.DATABASE_POOLER === 'transaction' && { pooler: env.DATABASE_POOLER }),
        ...(env.DATABASE_DIRECT_URL && { directUrl: env.DATABASE_DIRECT_URL }),
        ...replicasOf(env),
      }
    : {
        kind: 'embedded',
        dataDir: env.DATA_DIR,
        poolSize: env.DB_POOL_SIZE,
        restartAttempts: env.EMBEDDED_RESTART_ATTEMPTS,
      };
}

/** Tokens: their keys, issuer, audience and lifetimes, and an external issuer's. */
function authOf(env: Env): Config['auth'] {
  return {
    secret: env.JWT_SECRET,
    privateKeyPem: env.JWT_PRIVATE_KEY ?? null,
    issuer: env.JWT_ISSUER ?? null,
    audience: env.JWT_AUDIENCE,
    accessTokenTtl: env.ACCESS_TOKEN_TTL,
    refreshTokenTtl: env.REFRESH_TOKEN_TTL,
    refreshReuseInterval: env.REFRESH_TOKEN_REUSE_INTERVAL,
    external:
      env.OAUTH_EXTERNAL_ISSUER && env.OAUTH_EXTERNAL_JWKS_URL
        ? {
            issuer: env.OAUTH_EXTERNAL_ISSUER,
            jwksUrl: env.OAUTH_EXTERNAL_JWKS_URL,
            audience: env.OAUTH_EXTERNAL_AUDIENCE ?? null,
          }
        : null,
  };
}

/** Parses and validates the environment once; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    logLevel: env.LOG_LEVEL,
    database: databaseOf(env),
    publicUrl: env.PUBLIC_URL ?? null,
    introspection: env.GRAPHQL_INTROSPECTION ?? env.NODE_ENV !== 'production',
    trustedDocuments: {
      mode: env.GRAPHQL_TRUSTED_DOCUMENTS,
      file: env.GRAPHQL_TRUSTED_DOCUMENTS_FILE ?? null,
    },
    cost: costConfigOf(env),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    changeLogRetentionMs: Math.round(env.CHANGE_LOG_RETENTION_HOURS * 3_600_000),
    migrateOnStart: env.MIGRATE_ON_START,
    logFormat: env.LOG_FORMAT,
    metrics: { enabled: env.METRICS, path: env.METRICS_PATH, port: env.METRICS_PORT ?? null },
    compression: { enabled: env.COMPRESSION, thresholdBytes: env.COMPRESSION_THRESHOLD_BYTES },
    tracingEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    clusterWorkers: env.CLUSTER_WORKERS,
    corsOrigins: env.CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    trustProxy: env.TRUST_PROXY,
    subscriptions: {
      perSocket: env.SUBSCRIPTIONS_PER_SOCKET,
      socketsPerUser: env.SOCKETS_PER_USER,
      queueSize: env.SUBSCRIPTION_QUEUE_SIZE,
    },
    maxParticipantsPerMeeting: env.MAX_PARTICIPANTS_PER_MEETING,
    adminEmails: env.ADMIN_EMAILS.split(',')
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
    resourceBookingHorizonDays: env.RESOURCE_BOOKING_HORIZON_DAYS,
    feedMaxWaitMs: env.FEED_MAX_WAIT_MS,
    webhooks: webhookConfigOf(env),
    mail: mailConfigOf(env, env.PUBLIC_URL ?? null),
    rateLimits: {
      redisUrl: env.REDIS_URL ?? null,
      perIp: env.RATE_LIMIT_AUTH_PER_IP,
      perAccount: env.RATE_LIMIT_AUTH_PER_ACCOUNT,
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
    },
    auth: authOf(env),
  };
}

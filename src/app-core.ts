import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GraphQLSchema } from 'graphql';
import { AttemptLimiter } from './platform/auth/attempt-limiter';
import { loadSigningKey, type SigningKey } from './platform/auth/keys';
import { PasswordHasher } from './platform/auth/password';
import { SecretBox } from './platform/auth/secret-box';
import { DEFAULT_ISSUER } from './platform/auth/auth.settings';
import { TokenService, tokenSubject } from './platform/auth/tokens';
import type { Idempotency } from './platform/idempotency/idempotency';
import { startIdempotency } from './platform/idempotency/idempotency-keeping';
import { scrub } from './platform/observability/log-safety';
import { openLimiterRedis } from './platform/redis/redis-limiter-client';
import { QueryCounter } from './platform/observability/request-tracking';
import { AnswerCache, observeStatement } from './platform/answer-cache/answer-cache';
import { type DatabaseGuard, guardDatabase } from './platform/postgres/database-guard';
import { startInstanceHeartbeat } from './platform/sql/heartbeats';
import { type Database, openDatabase } from './platform/postgres/orm';
import type { CreateAppOptions } from './app-options';
import type { Config } from './app-config';
import { type AppDependencies, createSchema, moduleDependencies } from './context';
import { dataModel } from './data-model';

/** What the app is built on: the database, the keys, the dependencies and the schema. */
export interface AppCore {
  database: Database;
  queries: QueryCounter;
  /** The connection pool's state (guardDatabase): stuck while every connection is held. */
  guard: DatabaseGuard;
  key: SigningKey;
  issuer: string;
  deps: AppDependencies;
  schema: GraphQLSchema;
  idempotency: Idempotency;
  /**
   * With REDIS_URL, the counters every instance shares (sign-in attempts, cost budgets): one
   * client, whose outage is logged once. Closed with the instance.
   */
  limiterRedis: Redis | null;
  /** Whole answers to reads, kept until a write (RESPONSE_CACHE); null when off. */
  answers: AnswerCache | null;
  /** Stops pruning idempotency keys and saying the instance is alive. */
  stopBackground(): Promise<void>;
}

/** Opens the database and builds what every request and worker shares. */
export async function openCore(options: CreateAppOptions, logger: Logger): Promise<AppCore> {
  const { config } = options;
  const queries = new QueryCounter();
  const database = await openDatabase(config.database, {
    model: dataModel,
    migrate: options.migrate ?? true,
    counter: queries,
    requestTimeoutMs: config.requestTimeoutMs,
    redisUrl: config.rateLimits.redisUrl,
    log: (message) => logger.info({ component: 'orm' }, message),
    // Such as a pooled connection found broken: the database's state is logged once (guard).
    driverLog: (message) => logger.debug({ component: 'pg' }, scrub(message)),
  });
  const guard = guardDatabase(database.pool, config.requestTimeoutMs, logger);
  const key = await loadSigningKey(config.auth);
  // The same on every instance and port, so that instances sharing a key accept each other's tokens.
  const issuer = config.auth.issuer ?? config.publicUrl ?? DEFAULT_ISSUER;
  const tokens = new TokenService(key, {
    issuer,
    audience: config.auth.audience,
    accessTokenTtl: config.auth.accessTokenTtl,
    refreshTokenTtl: config.auth.refreshTokenTtl,
    refreshReuseInterval: config.auth.refreshReuseInterval,
    external: config.auth.external,
  });
  const secrets = SecretBox.of({
    key: config.webhooks.secretKey,
    privateKeyPem: config.auth.privateKeyPem,
    secret: config.auth.secret,
  });
  const limiterRedis = config.rateLimits.redisUrl
    ? openLimiterRedis(config.rateLimits.redisUrl, logger)
    : null;
  const deps: AppDependencies = {
    orm: database.orm,
    tokens,
    passwords: new PasswordHasher(options.passwordCost),
    attempts: AttemptLimiter.create(config.rateLimits, limiterRedis),
    secrets,
    ...moduleDependencies({ config, secrets }),
  };
  const schema = await createSchema(config);
  // This instance, seen alive every few seconds: its idempotency keys are taken over once it is not.
  const instance = `instance-${randomUUID()}`;
  const heartbeat = startInstanceHeartbeat(database.pool.pg, instance, logger);
  // A key whose first request has run twice the request timeout (its answer never kept) is
  // abandoned: the next retry takes it over.
  const keeping = startIdempotency({
    em: database.orm.em.fork(),
    sealer: secrets,
    abandonAfterMs: 2 * config.requestTimeoutMs,
    instance,
    callerOf: (authorization) => tokenSubject(tokens, authorization),
    logger,
  });
  const { idempotency } = keeping;
  const answers = answerCacheOf(config, database, queries, logger);
  const stopBackground = async (): Promise<void> => {
    keeping.stop();
    await heartbeat.stop();
  };
  return {
    database,
    queries,
    guard,
    key,
    issuer,
    deps,
    schema,
    idempotency,
    limiterRedis,
    answers,
    stopBackground,
  };
}

/**
 * The answer cache when RESPONSE_CACHE is on: it sees every statement (what each request reads
 * and writes). Not with read replicas: a replica behind the primary could answer a read made
 * after the primary's notice of a write with the state before it, and that answer would be kept.
 */
function answerCacheOf(
  config: Config,
  database: Database,
  queries: QueryCounter,
  logger: Logger,
): AnswerCache | null {
  if (!config.answerCache) {
    return null;
  }
  if (database.reads) {
    logger.warn(
      { component: 'answer-cache' },
      'RESPONSE_CACHE is on but DATABASE_READ_URLS is set: answers are not kept with read replicas',
    );
    return null;
  }
  queries.observer = observeStatement;
  return new AnswerCache(config.answerCache.maxBytes);
}

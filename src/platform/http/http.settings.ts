import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { defineSettings } from '../settings/settings';
import { commaList, flag, optionalUrl } from '../settings/values';

// The HTTP server's settings. Loaded with the configuration, before tracing starts: zod and
// proxy-addr only.

/**
 * Smallest response body worth compressing, in bytes. Measured (bench/compression-cost.ts): a
 * zlib stream costs ~70-100 µs per body whatever its size, plus ~10 µs per KiB; below ~4 KiB
 * each KiB saved costs 2-10 times more CPU than above, and such a body fits in the first
 * round trip anyway (the initial congestion window is 10 segments, ~14 KB).
 */
const COMPRESSION_THRESHOLD = 4096;

/** What is wrong with a list of trusted proxies (null: nothing), in proxy-addr's words. */
function problemOf(list: readonly string[]): string | null {
  try {
    proxyAddr.compile([...list]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** TRUST_PROXY: comma-separated, default `loopback` (a proxy on the same machine). */
const trustProxy = commaList('loopback').superRefine((list, ctx) => {
  const problem = problemOf(list);
  if (problem) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be addresses or CIDR ranges of the balancers, or loopback, linklocal, ' +
        `uniquelocal, comma-separated (${problem})`,
    });
  }
});

/** The HTTP server as the service runs it. */
export interface HttpConfig {
  host: string;
  port: number;
  /** The external base URL (token issuer when JWT_ISSUER is unset, feed addresses, mail links). */
  publicUrl: string | null;
  /** Origins allowed to call the API from a browser; empty: same origin only; `*`: any. */
  corsOrigins: string[];
  /**
   * TRUST_PROXY: the balancers whose `X-Forwarded-For` names the client (for limits, logs and
   * metrics); default `loopback`. A request from any other address is its own client.
   */
  trustProxy: readonly string[];
  /**
   * The longest a request takes: its waits for the database (a pooled connection, statements,
   * locks) share this one budget, less a reserve for answering, and end in a 503.
   */
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** Responses compressed (gzip, br) when the client accepts it and the body is this large. */
  compression: { enabled: boolean; thresholdBytes: number };
  /** Worker processes for `npm run start:cluster`; 0 means one per core. */
  clusterWorkers: number;
}

/** Where the service listens, who may call it, and how long a request and a shutdown take. */
export const httpSettings = defineSettings({
  area: 'HTTP server',
  variables: {
    HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'interface to listen on' }),
    PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(8000)
      .meta({ description: 'HTTP port' }),
    PUBLIC_URL: optionalUrl().meta({
      description:
        'external base URL: token issuer when `JWT_ISSUER` is unset; feed addresses; links and ' +
        'the sender of mail',
    }),
    CORS_ORIGINS: z.string().default('').meta({
      description: 'comma-separated origins allowed to call from a browser, or `*`; unset: none',
    }),
    TRUST_PROXY: trustProxy.meta({
      description:
        "balancers' addresses or CIDRs whose `X-Forwarded-For` names the client " +
        '([limits](operations.md#limits-and-protection))',
    }),
    REQUEST_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(30_000)
      .meta({
        description:
          "a request's one budget for its database waits, then 503 " +
          '([one deadline per request](operations.md#health-metrics-and-logs))',
      }),
    SHUTDOWN_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(120_000)
      .default(10_000)
      .meta({ description: 'how long a graceful shutdown may take' }),
    COMPRESSION: flag()
      .default(true)
      .meta({ description: 'gzip/br answers when the client accepts them' }),
    COMPRESSION_THRESHOLD_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(COMPRESSION_THRESHOLD)
      .meta({ description: 'smallest body compressed' }),
    CLUSTER_WORKERS: z.coerce
      .number()
      .int()
      .min(0)
      .max(64)
      .default(0)
      .meta({ description: 'worker processes of `npm run start:cluster`; 0: one per core' }),
  },
  configOf: (env): HttpConfig => ({
    host: env.HOST,
    port: env.PORT,
    publicUrl: env.PUBLIC_URL ?? null,
    corsOrigins: env.CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    trustProxy: env.TRUST_PROXY,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    compression: { enabled: env.COMPRESSION, thresholdBytes: env.COMPRESSION_THRESHOLD_BYTES },
    clusterWorkers: env.CLUSTER_WORKERS,
  }),
});

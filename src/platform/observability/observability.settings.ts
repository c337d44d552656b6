import { z } from 'zod';
import { defineSettings } from '../settings/settings';
import { flag, optionalUrl } from '../settings/values';

// Logs, metrics and tracing. A leaf file (zod and the settings' own files): the tracing preload
// reads these alone, before anything it instruments is loaded.

/** Where a cluster's primary serves its workers' metrics when METRICS_PORT is not set. */
export const CLUSTER_METRICS_PORT = 9464;

/** How the service reports on itself. */
export interface ObservabilityConfig {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: readable lines on a terminal outside production, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Prometheus metrics: off, or served at `path` on the service's port or on a port of their own. */
  metrics: { enabled: boolean; path: string; port: number | null };
  /** OTLP endpoint spans are exported to; null: tracing is not loaded at all. */
  tracingEndpoint: string | null;
}

/** Logs, metrics and tracing ([Health, metrics and logs](operations.md#health-metrics-and-logs)). */
export const observabilitySettings = defineSettings({
  area: 'Logs, metrics and tracing',
  about: '[Operations](operations.md#health-metrics-and-logs) explains each.',
  variables: {
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .meta({ description: '`fatal` … `trace`, or `silent`' }),
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto').meta({
      description:
        '`json` (JSON lines), `pretty`, or `auto`: pretty on a terminal outside production',
    }),
    METRICS: flag().default(true).meta({ description: 'serve Prometheus metrics' }),
    METRICS_PATH: z
      .string()
      .regex(/^\/[\w./-]*$/, 'must be a path such as /metrics')
      .default('/metrics')
      .meta({ description: 'their path' }),
    METRICS_PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .meta({
        defaultText: "the service's port",
        description: `a port of their own (cluster: the primary's, \`${CLUSTER_METRICS_PORT}\`)`,
      }),
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl().meta({
      description:
        'OTLP/HTTP collector, e.g. `http://collector:4318`; tracing is off without it (the ' +
        'standard `OTEL_*` variables apply too)',
    }),
  },
  configOf: (env): ObservabilityConfig => ({
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    metrics: { enabled: env.METRICS, path: env.METRICS_PATH, port: env.METRICS_PORT ?? null },
    tracingEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
  }),
});

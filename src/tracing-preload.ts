import { type Config, loadConfig } from './config';

/**
 * Imported first by main.ts: instrumentation must patch `http`, `express`, `graphql` and `pg`
 * before anything requires them. Without an OTLP endpoint configured, nothing of OpenTelemetry
 * is loaded at all. A bad configuration is left for main.ts to report.
 */
function tracingConfig(): Config | null {
  try {
    const config = loadConfig();
    return config.tracingEndpoint === null ? null : config;
  } catch {
    return null;
  }
}

const traced = tracingConfig();

/** The tracing module, loaded only when tracing is on (its imports patch modules as they load). */
function loadTracing(): typeof import('./platform/observability/tracing') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./platform/observability/tracing') as typeof import('./platform/observability/tracing');
}

/** Flushes and stops tracing (a no-op when it is off); main.ts calls it on shutdown. */
export const stopTracing: () => Promise<void> = traced
  ? loadTracing().startTracing(traced.metrics.path)
  : async () => {};

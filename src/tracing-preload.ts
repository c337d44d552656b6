import { observabilitySettings } from './platform/observability/observability.settings';
import { assembleSettings } from './platform/settings/settings';

/**
 * Imported first by main.ts: instrumentation must patch `http`, `express`, `graphql` and `pg`
 * before anything requires them, so this reads the observability settings alone (leaf files: zod
 * and the settings' own), never the whole configuration, which loads the modules. Without an
 * OTLP endpoint configured, nothing of OpenTelemetry is loaded at all. A bad configuration is
 * left for main.ts to report.
 */
function tracingSettings(): { endpoint: string; metricsPath: string } | null {
  try {
    const { tracingEndpoint, metrics } = assembleSettings([observabilitySettings]).read(
      process.env,
    );
    return tracingEndpoint === null
      ? null
      : { endpoint: tracingEndpoint, metricsPath: metrics.path };
  } catch {
    return null;
  }
}

const traced = tracingSettings();

/** The tracing module, loaded only when tracing is on (its imports patch modules as they load). */
function loadTracing(): typeof import('./platform/observability/tracing') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./platform/observability/tracing') as typeof import('./platform/observability/tracing');
}

/** Flushes and stops tracing (a no-op when it is off); main.ts calls it on shutdown. */
export const stopTracing: () => Promise<void> = traced
  ? loadTracing().startTracing(traced.metricsPath)
  : async () => {};

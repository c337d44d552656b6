import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** Whether a path (or an Express layer named after one) is a probe or a metrics scrape. */
function untraced(metricsPath: string): (name: string) => boolean {
  return (name) => name.includes('/health/') || name.includes(metricsPath);
}

/**
 * OpenTelemetry: spans for HTTP, Express, GraphQL and PostgreSQL, exported over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT (the exporter reads it and the other standard OTEL_* variables).
 * Only loaded when that variable is set (see tracing-preload.ts). Returns the flush on shutdown.
 */
export function startTracing(metricsPath: string): () => Promise<void> {
  // Probes and scrapes would be most of the spans, and say nothing.
  const ignored = untraced(metricsPath);
  const sdk = new NodeSDK({
    serviceName: process.env['OTEL_SERVICE_NAME'] ?? 'meeting-api',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => ignored(req.url ?? ''),
      }),
      new ExpressInstrumentation({ ignoreLayers: [ignored] }),
      // One span per operation phase and per non-trivial resolver, not one per scalar field.
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}

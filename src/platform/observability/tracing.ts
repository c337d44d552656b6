import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { scrub } from './log-safety';

/** Whether a path (or an Express layer named after one) is a probe or a metrics scrape. */
function untraced(metricsPath: string): (name: string) => boolean {
  return (name) => name.includes('/health/') || name.includes(metricsPath);
}

/**
 * OpenTelemetry: spans for HTTP, Express, GraphQL and PostgreSQL, exported over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT (the exporter reads it and the other standard OTEL_* variables).
 * Only loaded when that variable is set (see tracing-preload.ts). Returns the flush on shutdown.
 *
 * Set up from the trace SDK's parts (a provider with a batch processor, the async-hooks context,
 * W3C propagation) rather than `@opentelemetry/sdk-node`, which also installs the metrics and
 * logs SDKs and every exporter (gRPC, protobuf, Zipkin, Prometheus): 35 packages this service
 * never loads, about 40 MB of the production install.
 */
export function startTracing(metricsPath: string): () => Promise<void> {
  // Probes and scrapes would be most of the spans, and say nothing.
  const ignored = untraced(metricsPath);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': process.env['OTEL_SERVICE_NAME'] ?? 'meeting-api',
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => ignored(req.url ?? ''),
        // A path may hold a credential (a calendar feed's secret): its span gets it scrubbed.
        startIncomingSpanHook: (req) => {
          const path = (req.url ?? '').split('?')[0] ?? '';
          const clean = scrub(path);
          return clean === path ? {} : { 'url.path': clean };
        },
      }),
      new ExpressInstrumentation({ ignoreLayers: [ignored] }),
      // One span per operation phase and per non-trivial resolver, not one per scalar field.
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      new PgInstrumentation(),
    ],
  });
  return () => provider.shutdown();
}

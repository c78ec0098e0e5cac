/**
 * OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the SDK is imported here,
 * on demand, so with tracing off none of it is loaded and nothing wraps the request path.
 * - HTTP server spans: @fastify/otel (W3C traceparent taken from the request, route names);
 * - outbound calls (webhook attempts): @opentelemetry/instrumentation-undici, which also adds
 *   `traceparent` to every request it sends;
 * - SQL: storage/traced-dialect.ts, given the tracer returned here.
 * Spans leave in batches over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`; the exporter also
 * honours the standard OTEL_EXPORTER_OTLP_* headers and timeout variables.
 * None of these patch `require`, so load order does not matter (also under `presence serve`).
 */
import type { Tracer } from '@opentelemetry/api';

export interface Tracing {
  tracer: Tracer;
  /** Runs `work` with tracing suppressed: nothing it does makes a span (job polls, unless asked). */
  untraced<T>(work: () => Promise<T>): Promise<T>;
  /** Flushes the spans still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export async function startTracing(options: { endpoint: string; serviceName: string }): Promise<Tracing> {
  const [sdk, otlp, resources, instrumentation, undici, fastify, core, api] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
    import('@fastify/otel'),
    import('@opentelemetry/core'),
    import('@opentelemetry/api'),
  ]);
  const exporter = new otlp.OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  // Global tracer provider, AsyncLocalStorage context and the W3C trace-context propagator.
  provider.register();
  const unregister = instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new undici.UndiciInstrumentation(),
      new fastify.FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: (route) => UNTRACED_PATHS.has(route.url),
        // Named after the route, as OpenTelemetry's HTTP conventions say: `GET /v1/presence/receipts`
        // (the method alone for a request no route matched), not @fastify/otel's `request`.
        requestHook: (span, request) => {
          const route = (request as { routeOptions?: { url?: string } }).routeOptions?.url;
          span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
        },
      }),
    ],
  });
  return {
    tracer: provider.getTracer('presence'),
    untraced: (work) => api.context.with(core.suppressTracing(api.context.active()), work),
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}

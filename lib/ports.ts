/**
 * The sidecar's default ports, one constant each: the config schemas' defaults, the OTLP receiver's fallbacks, the
 * peers' port (every sidecar serves /partial on its metrics listener) and the deployment's container ports read them.
 * 9464 is OpenTelemetry's Prometheus exporter port; 4318 and 4317 are OTLP's own (HTTP and gRPC).
 */
export const DEFAULT_PORTS = { metrics: 9464, otlpHttp: 4318, otlpGrpc: 4317 } as const;

// Container healthcheck: `node /app/healthcheck.js [path]` (default /health).
// GET http://127.0.0.1:<port><path>; exit 0 on 2xx, 1 otherwise (503, refused, or no answer
// within 4 s). The port is the service's own: SERVICE (set in the image) names the service,
// its port variable (e.g. CRM_API_PORT) wins over the default, as in the service's config.
// The image's HEALTHCHECK asks /health (liveness); docker-compose.yml asks /ready (database
// and NATS reached, not shutting down) so that `depends_on: service_healthy` means "ready".
// The slim base image has no curl or wget. Kubernetes does not use this: its probes call
// /health and /ready directly (deploy/k8s).
'use strict';
/* global fetch, AbortSignal */ // Node 18+ globals; the lint config only declares a few.

const PORTS = {
  gateway: ['GATEWAY_PORT', 8080],
  'crm-api': ['CRM_API_PORT', 4001],
  'webhook-ingest': ['WEBHOOK_INGEST_PORT', 4002],
  automation: ['AUTOMATION_PORT', 4003],
  'mcp-ingest': ['MCP_INGEST_PORT', 4004],
  migrate: ['MIGRATE_PORT', 4005],
};

const path = process.argv[2] || '/health';
const entry = PORTS[process.env.SERVICE];
const port = entry ? Number(process.env[entry[0]] || entry[1]) : NaN;
if (!path.startsWith('/') || !Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write(
    `usage: SERVICE=<${Object.keys(PORTS).join('|')}> node healthcheck.js [/health|/ready]\n`,
  );
  process.exit(2);
}

fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);

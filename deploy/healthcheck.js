// Container healthcheck for docker compose: `node /app/healthcheck.js <port>`.
// GET http://127.0.0.1:<port>/health; exit 0 on 2xx (healthy or degraded), 1 otherwise
// (503 unhealthy, refused, or no answer within 4 s). The slim base image has no curl or wget.
// Kubernetes does not use this: its probes call /health directly (deploy/k8s).
'use strict';
/* global fetch, AbortSignal */ // Node 18+ globals; the lint config only declares a few.

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write('usage: node healthcheck.js <port>\n');
  process.exit(2);
}

fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);

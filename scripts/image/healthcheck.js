// The image's HEALTHCHECK: exits 0 when GET /readyz answers 200 on the port the gateway listens on
// (GATEWAY_PORT), 1 otherwise (not ready, not listening, or no answer within 2.5 s).
"use strict";
const port = process.env.GATEWAY_PORT || "8787";
const bound = process.env.GATEWAY_HOST || "127.0.0.1";
// A wildcard bind is reached on loopback; a specific address is reached where it is bound.
const host = bound === "0.0.0.0" || bound === "::" ? "127.0.0.1" : bound.includes(":") ? `[${bound}]` : bound;
fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.status === 200 ? 0 : 1),
  () => process.exit(1),
);

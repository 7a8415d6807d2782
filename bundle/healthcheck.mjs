import { createRequire as __ppsCreateRequire } from 'node:module';
const require = __ppsCreateRequire(import.meta.url);

// src/healthcheck.ts
var DEFAULT_LISTEN = "0.0.0.0:9090";
function healthUrl(listen2) {
  const separator = listen2.lastIndexOf(":");
  const host = listen2.slice(0, separator);
  const port = listen2.slice(separator + 1);
  const probe = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "[::]" ? "[::1]" : host;
  return `http://${probe}:${port}/healthz`;
}
var listen = process.env["LISTEN_ADDRESS"]?.trim() || DEFAULT_LISTEN;
fetch(healthUrl(listen), { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1)
);
export {
  healthUrl
};

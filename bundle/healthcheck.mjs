import { createRequire as __ppsCreateRequire } from 'node:module';
const require = __ppsCreateRequire(import.meta.url);

// src/host-port.ts
var HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;
function parseHostPort(value) {
  const parsed = parseHost(value);
  return parsed === null || parsed.port === null ? null : { host: parsed.host, port: parsed.port };
}
function parseHost(value) {
  const match = HOST_PORT.exec(value.trim());
  if (match === null) return null;
  const port = match[2] === void 0 ? null : Number(match[2]);
  if (port !== null && port > 65535) return null;
  return { host: (match[1] ?? "").replace(/^\[(.*)\]$/, "$1").toLowerCase(), port };
}
function urlHost(host) {
  return host.includes(":") ? `[${host}]` : host;
}
function isWildcardHost(host) {
  return host === "" || host === "0.0.0.0" || host === "::";
}

// src/healthcheck.ts
var DEFAULT_LISTEN = "0.0.0.0:9090";
function healthUrl(listen) {
  const parsed = parseHostPort(listen);
  if (parsed === null) return null;
  const probe = parsed.host === "::" ? "::1" : isWildcardHost(parsed.host) ? "127.0.0.1" : parsed.host;
  return `http://${urlHost(probe)}:${parsed.port}/healthz`;
}
var url = healthUrl(process.env["LISTEN_ADDRESS"]?.trim() || DEFAULT_LISTEN);
if (url === null) process.exit(1);
fetch(url, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1)
);
export {
  healthUrl
};

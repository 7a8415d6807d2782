/** Starting the emulator: state from the seed, route tables, and the node:http server. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../logger.js';
import { createBlobStore } from './blobs.js';
import { controlRoutes } from './control.js';
import { createFaultList } from './faults.js';
import { JSON_API, errorReply } from './http.js';
import { randomSuffix } from './ids.js';
import { answer, handleApi, handleBlob, handleControl, handleUpload, type Pipeline } from './pipeline.js';
import { createRateLimiter, RUN_LIST_WINDOW_MS } from './rate-limit.js';
import { createRequestLog } from './request-log.js';
import { createRouter, type Context, type Route } from './router.js';
import { agentRoutes } from './routes-agents.js';
import { BLOB_PREFIX, policyCodeRoutes, serveBlob } from './routes-policy-code.js';
import { policyRoutes } from './routes-policies.js';
import { organizationRoutes } from './routes-organization.js';
import { parameterRoutes } from './routes-parameters.js';
import { policySetMemberRoutes } from './routes-policy-set-members.js';
import { policySetVersionRoutes, UPLOAD_PREFIX, uploadRoutes } from './routes-policy-set-versions.js';
import { policySetRoutes } from './routes-policy-sets.js';
import { poolRoutes } from './routes-pools.js';
import { tokenRoutes } from './routes-tokens.js';
import { runRoutes } from './routes-runs.js';
import { addSeededRuns } from './run-builder.js';
import { defaultSeed } from './seed-default.js';
import { createStore } from './store.js';
import { defaultBehaviour, type Behaviour, type Seed } from './types.js';

export interface EmulatorOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default defaultSeed() */
  seed?: Seed;
  logger?: Logger;
  /** The emulator's clock, in milliseconds: timestamps, download expiry, the rate limit, faults with a duration. @default Date.now */
  now?: () => number;
  /** Requests `GET /_emulator/requests` keeps, the most recent. @default REQUEST_LOG_LIMIT (100,000) */
  requestLogLimit?: number;
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT/api/v2` */
  url: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  token: string;
  close(): Promise<void>;
}

const API_PREFIX = '/api/v2';
/** `GET /api/v2/ping`: 204 with the rate-limit headers, a cheap way to learn the limit. It counts against it. */
const PING: Route = { method: 'GET', pattern: '/ping', handler: () => ({ status: 204 }) };
const CONTROL_PREFIX = '/_emulator/';

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const seed = options.seed ?? defaultSeed();
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? ((): number => Date.now());
  const store = createStore(seed, now);
  addSeededRuns(store, seed, now);
  const behaviour: Behaviour = { ...defaultBehaviour(), ...seed.behaviour, ...(seed.nativeKind ? { nativeKind: seed.nativeKind } : {}) };
  const blobs = createBlobStore(now);
  const faults = createFaultList(now);
  faults.add(seed.faults ?? []);
  const limiter = createRateLimiter(seed.rateLimit ?? 30, now, seed.rateLimitWindow ?? 'sliding', seed.rateLimitReset ?? 'real');
  const runListLimiter = createRateLimiter(seed.runListRateLimit ?? 30, now, 'sliding', 'real', RUN_LIST_WINDOW_MS);
  const log = createRequestLog(options.requestLogLimit);
  const pipeline: Pipeline = {
    api: createRouter([
      ...policyRoutes, ...policyCodeRoutes, ...policySetRoutes, ...policySetMemberRoutes, ...policySetVersionRoutes, ...parameterRoutes,
      ...organizationRoutes, ...poolRoutes, ...tokenRoutes, ...agentRoutes, ...runRoutes, PING,
    ]),
    control: createRouter(controlRoutes({ faults, log, limiter, runListLimiter, behaviour })),
    blobs: createRouter([{ method: 'GET', pattern: '/:key', handler: serveBlob }]),
    uploads: createRouter(uploadRoutes),
    faults,
    limiter,
    runListLimiter,
    log,
    logger: options.logger ?? silentLogger(),
    token: seed.token ?? process.env.API_TOKEN ?? randomSuffix(32),
  };
  let origin = '';

  const server = createServer((req, res) => {
    const raw = req.url ?? '/';
    const url = new URL(raw, 'http://emulator');
    const at = (prefix: string): Context => ({
      req, method: req.method ?? 'GET', path: url.pathname.slice(prefix.length) || '/', query: url.searchParams,
      params: {}, store, blobs, origin, now, behaviour,
    });
    const guard = (handling: Promise<void>): void =>
      void handling.catch((error: unknown) => {
        pipeline.logger.error({ err: error, method: req.method, path: url.pathname }, 'emulator request failed');
        res.destroy();
      });
    if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
      guard(handleApi(pipeline, at(API_PREFIX), raw.slice(API_PREFIX.length), res));
    } else if (url.pathname.startsWith(BLOB_PREFIX)) {
      guard(handleBlob(pipeline, at(BLOB_PREFIX.slice(0, -1)), raw, res));
    } else if (url.pathname.startsWith(UPLOAD_PREFIX)) {
      guard(handleUpload(pipeline, at(UPLOAD_PREFIX.slice(0, -1)), url.pathname, res));
    } else if (url.pathname.startsWith(CONTROL_PREFIX)) {
      guard(handleControl(pipeline, at(CONTROL_PREFIX.slice(0, -1)), res));
    } else {
      answer(res, errorReply(404, [{ status: '404', title: 'not found' }]), {}, JSON_API, () => undefined);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}${API_PREFIX}`,
    origin,
    token: pipeline.token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

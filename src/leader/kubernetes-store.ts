import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, request } from 'undici';
import { errorMessage, LeaseStoreError, UsageError } from '../errors.js';
import { optionalFields, readStoreAnswer, type LeaderRecord, type LeaseStore, type VersionedRecord, type WriteResult } from './store.js';

/** Where Kubernetes mounts a pod's service-account token, CA and namespace. */
export { SERVICE_ACCOUNT_DIR } from '../config/secrets.js';

export interface KubernetesStoreOptions {
  /** `https://host:port` of the API server. @default from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT */
  apiServer: string;
  /** Holds `token` (read again before each request: it is rotated), `ca.crt` and `namespace`. */
  serviceAccountDir: string;
  leaseName: string;
}

/** The API server of the pod's cluster, from the variables Kubernetes sets in every pod. */
export function inClusterApiServer(env: NodeJS.ProcessEnv): string {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (host === undefined || host === '') {
    throw new UsageError('leader-election.store "kubernetes" runs only in a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set); use store "etcd" elsewhere');
  }
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The annotations of the Lease that carry what its spec has no field for: the holder's fingerprint and address. */
export const FINGERPRINT_ANNOTATION = 'policy-pool-sync.io/fingerprint';
export const ADDRESS_ANNOTATION = 'policy-pool-sync.io/leader-address';

interface Lease {
  metadata?: { resourceVersion?: string; annotations?: Record<string, unknown> };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

/**
 * The lease as a `coordination.k8s.io/v1` Lease in the pod's namespace, over HTTPS with the pod's service-account
 * token and CA: GET, POST to create, PUT with `metadata.resourceVersion` to update; the API server answers 409 when
 * another candidate wrote first. Needs leases get, create and update (deploy/ha/role.yaml).
 */
export async function kubernetesLeaseStore(options: KubernetesStoreOptions): Promise<LeaseStore> {
  const dir = options.serviceAccountDir;
  const ca = await readFile(path.join(dir, 'ca.crt'), 'utf8').catch(() => {
    throw new UsageError(`cannot read the service account's CA at ${path.join(dir, 'ca.crt')}: set automountServiceAccountToken: true on the pod (deploy/ha does)`);
  });
  const namespace = (await readFile(path.join(dir, 'namespace'), 'utf8').catch(() => '')).trim();
  if (namespace === '') throw new UsageError(`cannot read the pod's namespace at ${path.join(dir, 'namespace')}`);
  const base = `${options.apiServer.replace(/\/+$/, '')}/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const named = `${base}/${encodeURIComponent(options.leaseName)}`;
  let closed: Promise<void> | null = null;
  const agent = new Agent({ connect: { ca }, keepAliveTimeout: 10_000, connections: 2 });
  const where = `Lease ${namespace}/${options.leaseName}`;

  async function call(method: 'GET' | 'POST' | 'PUT', url: string, body: unknown, signal: AbortSignal): Promise<{ status: number; lease: Lease | null }> {
    const token = (await readFile(path.join(dir, 'token'), 'utf8').catch(() => '')).trim();
    if (token === '') throw new LeaseStoreError(`cannot read the service account's token at ${path.join(dir, 'token')}`);
    let res;
    try {
      res = await request(url, {
        method,
        headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        dispatcher: agent,
        signal,
      });
    } catch (error) {
      signal.throwIfAborted();
      throw new LeaseStoreError(`${method} ${where}: cannot reach the Kubernetes API server ${options.apiServer}: ${errorMessage(error)}`);
    }
    const text = await readStoreAnswer(res.body, `${method} ${where}`);
    const status = res.statusCode;
    if (status === 401 || status === 403) {
      throw new LeaseStoreError(`${method} ${where}: HTTP ${status}: the service account may not ${method === 'GET' ? 'get' : method === 'POST' ? 'create' : 'update'} leases in ${namespace}: apply the Role and RoleBinding of deploy/ha`);
    }
    if (status >= 200 && status < 300) {
      try {
        return { status, lease: JSON.parse(text) as Lease };
      } catch {
        throw new LeaseStoreError(`${method} ${where}: the API server answered ${status} without a Lease`);
      }
    }
    if (status === 404 || status === 409) return { status, lease: null };
    throw new LeaseStoreError(`${method} ${where}: HTTP ${status} ${statusMessage(text)}`);
  }

  function written(status: number, lease: Lease | null): WriteResult {
    if (status === 409 || status === 404) return 'conflict';
    const version = lease?.metadata?.resourceVersion;
    if (typeof version !== 'string') throw new LeaseStoreError(`${where}: the API server answered without metadata.resourceVersion`);
    return { version };
  }

  const object = (record: LeaderRecord, version?: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: options.leaseName, namespace, annotations: leaseAnnotations(record), ...(version === undefined ? {} : { resourceVersion: version }) },
    spec: leaseSpec(record),
  });

  return {
    description: where,
    async get(signal): Promise<VersionedRecord | null> {
      const { status, lease } = await call('GET', named, undefined, signal);
      if (status === 404 || lease === null) return null;
      const version = lease.metadata?.resourceVersion;
      if (typeof version !== 'string') throw new LeaseStoreError(`${where}: the API server answered without metadata.resourceVersion`);
      return { record: leaseRecord(lease), version };
    },
    async create(record, signal) {
      const { status, lease } = await call('POST', base, object(record), signal);
      return written(status, lease);
    },
    async update(record, version, signal) {
      const { status, lease } = await call('PUT', named, object(record, version), signal);
      return written(status, lease);
    },
    close: () => (closed ??= agent.close()),
  };
}

/** A Lease's spec as client-go writes it (`LeaderElectionRecordToLeaseSpec`): whole seconds, MicroTime stamps. */
export function leaseSpec(record: LeaderRecord): NonNullable<Lease['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: Math.max(1, Math.ceil(record.leaseDurationMs / 1000)),
    acquireTime: microTime(record.acquireTime),
    renewTime: microTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
}

/** The record's fingerprint and address as the Lease's annotations. */
function leaseAnnotations(record: LeaderRecord): Record<string, string> {
  return {
    ...(record.fingerprint === undefined ? {} : { [FINGERPRINT_ANNOTATION]: record.fingerprint }),
    ...(record.address === undefined ? {} : { [ADDRESS_ANNOTATION]: record.address }),
  };
}

function leaseRecord(lease: Lease): LeaderRecord {
  const spec = lease.spec ?? {};
  const annotations = lease.metadata?.annotations ?? {};
  return {
    ...optionalFields({ fingerprint: annotations[FINGERPRINT_ANNOTATION], address: annotations[ADDRESS_ANNOTATION] }),
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationMs: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : 0,
    acquireTime: spec.acquireTime ?? '',
    renewTime: spec.renewTime ?? '',
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

/** RFC 3339 with microseconds, as metav1.MicroTime serialises: `2026-01-02T03:04:05.678000Z`. */
function microTime(iso: string): string {
  return iso.replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The `message` of a Kubernetes `Status` answer, or the start of the text. */
function statusMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  } catch {
    // not a Status
  }
  return text.slice(0, 200);
}

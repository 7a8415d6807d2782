/**
 * A token's text written to a key of a Kubernetes Secret in the daemon's own namespace, over HTTPS with the pod's
 * service-account token and CA: GET the Secret, then a JSON merge patch of that one key (the Secret's other keys are
 * left as they are), or a create when it does not exist. Only a Secret the operator allows by name (`tokens.secrets`)
 * is ever written; the RBAC of deploy/token-secrets lets the service account get and patch those names, and create.
 * No answer's body is repeated in an error: it may echo what was sent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, request } from 'undici';

/** What delivers a token's text to a Secret's key. */
export interface SecretWriter {
  write(secret: string, key: string, text: string, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** The Secrets the operator allows, and the writer that reaches them. */
export interface TokenSecrets {
  allowed: readonly string[];
  writer: SecretWriter;
}

export interface KubernetesSecretOptions {
  /** `https://host:port` of the API server. */
  apiServer: string;
  /** Holds `token` (read again before each request: it is rotated), `ca.crt` and `namespace`. */
  serviceAccountDir: string;
}

/**
 * The writer of the pod the daemon runs in: the API server from KUBERNETES_SERVICE_HOST and _PORT, the service
 * account's folder Kubernetes mounts. Outside a pod, a delivery fails (and the token made for it is deleted again).
 */
export function inClusterSecretWriter(env: NodeJS.ProcessEnv, serviceAccountDir: string): SecretWriter {
  let writer: SecretWriter | null = null;
  return {
    async write(secret, key, text, signal) {
      const host = env['KUBERNETES_SERVICE_HOST'];
      if (host === undefined || host === '') throw new Error('a Secret is written only from a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set)');
      writer ??= kubernetesSecretWriter({ apiServer: `https://${host.includes(':') ? `[${host}]` : host}:${env['KUBERNETES_SERVICE_PORT'] ?? '443'}`, serviceAccountDir });
      return writer.write(secret, key, text, signal);
    },
    close: () => writer?.close() ?? Promise.resolve(),
  };
}

export function kubernetesSecretWriter(options: KubernetesSecretOptions): SecretWriter {
  const dir = options.serviceAccountDir;
  let agent: Agent | null = null;
  const read = (file: string, what: string) =>
    readFile(path.join(dir, file), 'utf8').then((text) => text.trim(), () => {
      throw new Error(`cannot read the service account's ${what} at ${path.join(dir, file)}: the daemon delivers to a Secret only in its pod`);
    });

  async function call(method: 'GET' | 'POST' | 'PATCH', url: string, body: unknown, signal: AbortSignal | undefined, where: string): Promise<number> {
    agent ??= new Agent({ connect: { ca: await read('ca.crt', 'CA') }, keepAliveTimeout: 10_000, connections: 2 });
    const token = await read('token', 'token');
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const res = await request(url, {
      method,
      headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      dispatcher: agent,
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      throw new Error(`${method} ${where}: cannot reach the Kubernetes API server ${options.apiServer} (${error instanceof Error ? error.message : String(error)})`);
    });
    await res.body.dump();
    if (res.statusCode === 401 || res.statusCode === 403) {
      throw new Error(`${method} ${where}: HTTP ${res.statusCode}: the service account may not write this Secret: apply deploy/token-secrets, naming it`);
    }
    return res.statusCode;
  }

  return {
    async write(secret, key, text, signal) {
      const namespace = await read('namespace', 'namespace');
      const base = `${options.apiServer.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
      const named = `${base}/${encodeURIComponent(secret)}`;
      const where = `Secret ${namespace}/${secret}`;
      const data = { [key]: Buffer.from(text, 'utf8').toString('base64') };
      const found = await call('GET', named, undefined, signal, where);
      let status: number;
      if (found === 404) {
        status = await call('POST', base, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret }, type: 'Opaque', data }, signal, where);
        if (status === 409) status = await call('PATCH', named, { data }, signal, where);
      } else if (found >= 200 && found < 300) {
        status = await call('PATCH', named, { data }, signal, where);
      } else {
        status = found;
      }
      if (status < 200 || status >= 300) throw new Error(`writing key "${key}" of ${where}: HTTP ${status}`);
    },
    async close() {
      await agent?.close();
    },
  };
}

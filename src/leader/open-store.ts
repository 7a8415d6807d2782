import type { LeaderElectionConfig } from '../config/types.js';
import { etcdLeaseStore } from './etcd-store.js';
import { inClusterApiServer, kubernetesLeaseStore, SERVICE_ACCOUNT_DIR } from './kubernetes-store.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LeaseStore } from './store.js';

/**
 * The pod's Lease of `leaseName` when this process runs in a Kubernetes pod with a service-account token (deploy/ha
 * mounts one), else null: what a replica without election reads once, to refuse to sync beside a leader.
 */
export async function podLeaseStore(env: NodeJS.ProcessEnv, leaseName: string, dir = SERVICE_ACCOUNT_DIR): Promise<LeaseStore | null> {
  if ((env.KUBERNETES_SERVICE_HOST ?? '') === '' || !existsSync(path.join(dir, 'token'))) return null;
  try {
    return await kubernetesLeaseStore({ apiServer: inClusterApiServer(env), serviceAccountDir: dir, leaseName });
  } catch {
    return null;
  }
}

/** The store `leader-election.store` names. */
export async function openLeaseStore(config: LeaderElectionConfig, env: NodeJS.ProcessEnv): Promise<LeaseStore> {
  if (config.store === 'etcd') {
    // Each endpoint a share of a round, leaving room for the write that follows a read.
    return etcdLeaseStore(config.endpoints, config.leaseName, { endpointTimeoutMs: Math.max(100, Math.floor(config.renewDeadlineMs / (config.endpoints.length + 1))) });
  }
  return kubernetesLeaseStore({ apiServer: inClusterApiServer(env), serviceAccountDir: SERVICE_ACCOUNT_DIR, leaseName: config.leaseName });
}

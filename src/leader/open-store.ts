import type { LeaderElectionConfig } from '../config/types.js';
import { etcdLeaseStore } from './etcd-store.js';
import { inClusterApiServer, kubernetesLeaseStore, SERVICE_ACCOUNT_DIR } from './kubernetes-store.js';
import type { LeaseStore } from './store.js';

/** The store `leader-election.store` names. */
export async function openLeaseStore(config: LeaderElectionConfig, env: NodeJS.ProcessEnv): Promise<LeaseStore> {
  if (config.store === 'etcd') {
    // Each endpoint a share of a round, leaving room for the write that follows a read.
    return etcdLeaseStore(config.endpoints, config.leaseName, { endpointTimeoutMs: Math.max(100, Math.floor(config.renewDeadlineMs / (config.endpoints.length + 1))) });
  }
  return kubernetesLeaseStore({ apiServer: inClusterApiServer(env), serviceAccountDir: SERVICE_ACCOUNT_DIR, leaseName: config.leaseName });
}

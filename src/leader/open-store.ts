import type { LeaderElectionConfig } from '../config/types.js';
import { etcdLeaseStore } from './etcd-store.js';
import { inClusterApiServer, kubernetesLeaseStore, SERVICE_ACCOUNT_DIR } from './kubernetes-store.js';
import type { LeaseStore } from './store.js';

/** The store `leader-election.store` names. */
export async function openLeaseStore(config: LeaderElectionConfig, env: NodeJS.ProcessEnv): Promise<LeaseStore> {
  if (config.store === 'etcd') return etcdLeaseStore(config.endpoints, config.leaseName);
  return kubernetesLeaseStore({ apiServer: inClusterApiServer(env), serviceAccountDir: SERVICE_ACCOUNT_DIR, leaseName: config.leaseName });
}

/** Leader election: one replica syncs, the others stand by (docs/daemon.md, "Running a standby"). */
export { createElector, type Elector, type ElectorOptions } from './elector.js';
export { etcdLeaseStore, ETCD_KEY_PREFIX } from './etcd-store.js';
export { kubernetesLeaseStore, type KubernetesStoreOptions } from './kubernetes-store.js';
export { leaderIdentity } from './identity.js';
export { syncFingerprint } from './fingerprint.js';
export { liveHolder } from './live-holder.js';
export { openLeaseStore, podLeaseStore } from './open-store.js';
export { LEASE_DURATION_BOUNDS, type LeaderRecord, type LeaseStore, type VersionedRecord, type WriteResult } from './store.js';

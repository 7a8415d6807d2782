import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** This replica's name in the lease: host name (the pod's name in Kubernetes), process id, and a random part. */
export function leaderIdentity(): string {
  return `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

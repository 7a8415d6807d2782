/**
 * A policy set's new version: created, its archive uploaded to the version's upload link, then read until the service
 * has read it. The wait runs on the pass's clock and ends with the pass's signal or its stop (a SIGINT), at once.
 */
import type { PolicySetVersion } from '../api/types.js';
import { errorMessage } from '../errors.js';
import { setArchiveBody } from '../declared/index.js';
import type { PolicySetChange } from '../plan/types.js';
import { passClock, type ApplyOptions } from './options.js';

/** How long a new version may take to be read by the service before the apply gives up on it. @default 10 minutes */
export const DEFAULT_SET_VERSION_TIMEOUT_MS = 10 * 60_000;
/** The first wait between two reads of a version; each next one is twice as long, up to LONGEST_POLL_MS. */
export const FIRST_POLL_MS = 200;
export const LONGEST_POLL_MS = 5_000;

/** The version, ready; errored, canceled, too slow or stopped is a failure naming the version, never its upload link. */
export async function uploadVersion(setId: string, change: PolicySetChange, options: ApplyOptions): Promise<PolicySetVersion> {
  const archive = await setArchiveBody(change.declared!.content!);
  const version = await options.api.createPolicySetVersion(setId);
  await options.api.uploadPolicySetVersion(version, archive);
  return untilReady(version.id, change.name, options);
}

async function untilReady(id: string, setName: string, options: ApplyOptions): Promise<PolicySetVersion> {
  const clock = passClock(options);
  const timeout = options.setVersionTimeoutMs ?? DEFAULT_SET_VERSION_TIMEOUT_MS;
  const started = clock.now();
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, LONGEST_POLL_MS)) {
    const read = await options.api.getPolicySetVersion(id);
    if (read.status === 'ready') return read;
    const named = `version ${read.id} of policy set "${setName}"`;
    if (read.status === 'errored' || read.status === 'canceled') {
      throw new Error(`${named} ${read.status}: ${read.errorMessage ?? read.error ?? 'the service gave no message'}`);
    }
    if (clock.now() - started + wait > timeout) {
      throw new Error(`${named} is still ${read.status} after ${Math.round(timeout / 1000)} s; the next pass looks again`);
    }
    try {
      await clock.sleep(wait, options.stop);
    } catch (error) {
      throw new Error(`${named} was still ${read.status} when the run stopped (${errorMessage(error)}); the next pass looks again`, { cause: error });
    }
  }
}

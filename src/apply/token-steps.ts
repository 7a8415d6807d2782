/**
 * An agent token made and delivered, or deleted. The text goes from the create's answer to its file in the token
 * folder of this run (`tokenDir`, never the plan's), written whole or not at all: a temporary file of mode 0600 in
 * the same folder, renamed over the target. A token whose delivery fails is deleted again, so none is left that
 * nobody holds; the token it was to succeed is untouched.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { tokenTarget } from '../declared/token-target.js';
import type { TokenChange } from '../plan/types.js';
import type { TokenSpec } from '../plan/refs.js';
import type { ApplyOptions } from './options.js';

export async function createToken(change: TokenChange, options: ApplyOptions): Promise<undefined> {
  const spec = change.declared!;
  const delivery = deliveryOf(spec, options);
  const poolId = change.live.poolId ?? (await poolIdOf(change.poolName, options));
  const made = await options.api.createAgentToken(poolId, spec.description, change.live.tokenIds);
  try {
    await delivery.deliver(made.token);
  } catch (error) {
    const undone = await options.api.deleteAgentToken(made.id).then(() => 'it was deleted again', (e: unknown) => `deleting it again failed too (${errorMessage(e)}): delete ${made.id} by hand`);
    throw new Error(`token ${made.id} was made but could not be delivered to ${delivery.where} (${errorMessage(error)}); ${undone}`);
  }
  options.logger.info({ pool: change.poolName, description: spec.description, token: made.id, deliveredTo: delivery.where }, 'agent token made and delivered');
  return undefined;
}

/**
 * Where this run delivers a token, decided by this run's own settings (never the plan's): a file inside its token
 * folder, or a Secret its config allows by name. Refused before any token is made.
 */
function deliveryOf(spec: TokenSpec, options: ApplyOptions): { where: string; deliver: (text: string) => Promise<void> } {
  if (spec.secret !== null) {
    const { name, key } = spec.secret;
    const secrets = options.tokenSecrets;
    if (secrets === undefined || !secrets.allowed.includes(name)) throw new Error(`deliver-to Secret "${name}" is not one the operator allows (tokens.secrets); no token was made`);
    return { where: `Secret "${name}" key "${key}"`, deliver: (text) => secrets.writer.write(name, key, text) };
  }
  const target = tokenTarget(options.tokenDir ?? null, spec.file ?? '');
  if ('problem' in target) throw new Error(`deliver-to "${spec.file ?? ''}": ${target.problem}; no token was made`);
  return { where: `"${spec.file ?? ''}"`, deliver: (text) => deliver(target.path, text) };
}

export async function deleteToken(change: TokenChange, options: ApplyOptions): Promise<undefined> {
  await options.api.deleteAgentToken(change.id!);
  return undefined;
}

/** A pool this plan created has no id in the plan: it is looked up by name. */
async function poolIdOf(name: string, options: ApplyOptions): Promise<string> {
  const pool = (await options.api.listAgentPools(options.organization, { q: name })).pools.find((p) => p.name === name);
  if (pool === undefined) throw new Error(`agent pool "${name}" was not found to make its token in`);
  return pool.id;
}

/** Written whole: a temporary file beside the target (mode 0600, never one that exists), synced, then renamed over it. */
async function deliver(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${text}\n`);
    await handle.sync();
    await handle.close();
    await rename(temporary, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

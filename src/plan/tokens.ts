/**
 * A declared pool's agent tokens, managed exactly (docs/declared-repo.md, "Agent tokens"): a declared token that does
 * not exist is made (and delivered by the apply); one older than `rotate-after` gets a successor, and the older ones
 * of its description are deleted once the successor has been used (its `last-used-at`), or once it is older than
 * `overlap`, on a later pass; an undeclared token is kept with a warning, deleted only with prune. A pool without
 * `tokens:` is not read for them, and nothing is planned. Pure: the time is `options.now`.
 */
import type { DeclaredPool, DeclaredToken } from '../declared/types.js';
import type { LiveToken } from '../model.js';
import type { PoolPair } from './pairs.js';
import type { PlanOptions, TokenChange, TokenStatus } from './types.js';
import { byCodeUnit } from '../order.js';

export interface TokenPlan {
  changes: TokenChange[];
  warnings: string[];
  errors: string[];
  /** Every live token of the pools that declare tokens, with its age, last use and where its rotation stands. */
  statuses: TokenStatus[];
}

export function planTokens(pairs: readonly PoolPair[], options: PlanOptions): TokenPlan {
  const plan: TokenPlan = { changes: [], warnings: [], errors: [], statuses: [] };
  for (const { declared: pool, live } of pairs) {
    if (pool === null || pool.tokens == null) continue;
    const tokens = [...(live?.tokens ?? [])].sort(byCreation);
    const context: PoolContext = { pool, poolId: live?.id ?? null, tokens, options, plan };
    for (const token of pool.tokens) planDeclared(token, context);
    const declared = new Set(pool.tokens.map((t) => t.description));
    for (const token of tokens.filter((t) => !declared.has(t.description))) planUndeclared(token, context);
  }
  return plan;
}

interface PoolContext {
  pool: DeclaredPool;
  poolId: string | null;
  /** Oldest first. */
  tokens: LiveToken[];
  options: PlanOptions;
  plan: TokenPlan;
}

function planDeclared(token: DeclaredToken, c: PoolContext): void {
  const same = c.tokens.filter((t) => t.description === token.description);
  const newest = same.at(-1);
  if (newest === undefined) {
    if (token.deliverTo === null) c.plan.errors.push(`${what(c.pool, token.description)} does not exist and has no deliver-to: nowhere to deliver one made now`);
    else c.plan.changes.push(createChange(token, c, same, 'not in the live state'));
    return;
  }
  const older = same.slice(0, -1);
  const now = c.options.now;
  if (older.length > 0) {
    const done = successorDone(newest, token, now);
    for (const old of older) {
      if (done === null) status(c, old, `rotation under way: kept until its successor ${newest.id} is used${token.overlap === null ? '' : ` or is ${token.overlap} old`}`);
      else c.plan.changes.push(deleteChange(old, c, same, `rotated: ${done}`));
    }
    status(c, newest, done === null ? `successor of ${older.map((t) => t.id).join(', ')}, not used yet` : 'successor, in use');
    return;
  }
  const age = ageMs(newest, now);
  if (token.rotateAfterMs === null || age === null || age <= token.rotateAfterMs) {
    status(c, newest, null);
    return;
  }
  if (token.deliverTo === null) {
    c.plan.warnings.push(`${what(c.pool, token.description)} is ${ageText(age)} old, older than rotate-after ${token.rotateAfter}, but has no deliver-to: it is not rotated`);
    status(c, newest, `due for rotation (rotate-after ${token.rotateAfter}), no deliver-to`);
    return;
  }
  c.plan.changes.push(createChange(token, c, same, `rotation: ${newest.id} is ${ageText(age)} old, older than rotate-after ${token.rotateAfter}; it is deleted after its successor's first use`));
  status(c, newest, `rotation starts: a successor is made`);
}

/** Why the older tokens of a rotation may go now, or null while they must stay. */
function successorDone(successor: LiveToken, token: DeclaredToken, now: number): string | null {
  if (successor.lastUsedAt !== null) return `its successor ${successor.id} was first used by ${successor.lastUsedAt}`;
  const age = ageMs(successor, now);
  if (token.overlapMs !== null && age !== null && age > token.overlapMs) return `its successor ${successor.id} is ${ageText(age)} old, past overlap ${token.overlap}`;
  return null;
}

function planUndeclared(token: LiveToken, c: PoolContext): void {
  if (c.options.prune) {
    c.plan.changes.push(deleteChange(token, c, c.tokens.filter((t) => t.description === token.description), 'not declared, prune is on'));
    return;
  }
  c.plan.warnings.push(`${what(c.pool, token.description)} (${token.id}) is not declared and is kept because prune is off`);
  status(c, token, 'not declared: kept');
}

function createChange(token: DeclaredToken, c: PoolContext, same: readonly LiveToken[], reason: string): TokenChange {
  return {
    resource: 'agent-token', name: `${c.pool.name}/${token.description}`, id: null, action: 'create', reason,
    fields: { description: { before: null, after: token.description }, 'deliver-to': { before: null, after: deliveryText(token) } },
    poolName: c.pool.name,
    declared: { description: token.description, ...deliverySpec(token) },
    live: { poolId: c.poolId, tokenIds: same.map((t) => t.id), token: null },
  };
}

function deleteChange(token: LiveToken, c: PoolContext, same: readonly LiveToken[], reason: string): TokenChange {
  return {
    resource: 'agent-token', name: `${c.pool.name}/${token.description}`, id: token.id, action: 'delete', reason,
    fields: {
      description: { before: token.description, after: null },
      'created-at': { before: token.createdAt, after: null },
      'last-used-at': { before: token.lastUsedAt, after: null },
    },
    poolName: c.pool.name,
    declared: null,
    live: { poolId: c.poolId, tokenIds: same.map((t) => t.id), token: { ...token } },
  };
}

/** `build-prod` (a file of the token folder) or `secret agent-tokens/prod` (a Secret's key): where the text goes. */
function deliveryText(token: DeclaredToken): string | null {
  const to = token.deliverTo;
  return to === null ? null : 'file' in to ? to.file : `secret ${to.secret}/${to.key}`;
}

function deliverySpec(token: DeclaredToken): { file: string | null; secret: { name: string; key: string } | null } {
  const to = token.deliverTo;
  if (to !== null && 'secret' in to) return { file: null, secret: { name: to.secret, key: to.key } };
  return { file: to?.file ?? null, secret: null };
}

function status(c: PoolContext, token: LiveToken, note: string | null): void {
  const age = ageMs(token, c.options.now);
  c.plan.statuses.push({ pool: c.pool.name, description: token.description, id: token.id, age: age === null ? null : ageText(age), lastUsedAt: token.lastUsedAt, note });
}

/** One status as every format says it: `build "k8s-prod" (at-…): 31d old, last used 2026-11-30T10:00:00Z; <note>`. */
export function tokenLine(s: TokenStatus): string {
  const age = s.age === null ? 'age unknown' : `${s.age} old`;
  const used = s.lastUsedAt === null ? 'never used' : `last used ${s.lastUsedAt}`;
  return `agent pool "${s.pool}" token "${s.description}" (${s.id}): ${age}, ${used}${s.note === null ? '' : `; ${s.note}`}`;
}

function what(pool: DeclaredPool, description: string): string {
  return `agent pool "${pool.name}" token "${description}"`;
}

function byCreation(a: LiveToken, b: LiveToken): number {
  const at = (t: LiveToken) => (t.createdAt === null ? Number.NEGATIVE_INFINITY : Date.parse(t.createdAt) || Number.NEGATIVE_INFINITY);
  return at(a) - at(b) || byCodeUnit(a.id, b.id);
}

function ageMs(token: LiveToken, now: number): number | null {
  const created = token.createdAt === null ? Number.NaN : Date.parse(token.createdAt);
  return Number.isNaN(created) ? null : Math.max(0, now - created);
}

/** `31d`, `5h`, `12m`, `40s`: the largest whole unit. */
export function ageText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  return `${Math.floor(ms / 1000)}s`;
}

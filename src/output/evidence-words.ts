/** What every format says of a change's evidence and of a rollout, in the same words. */
import type { ChangeEvidence } from '../plan/evidence.js';
import type { RolloutStatus } from '../plan/rollout.js';
import { count } from '../plural.js';

/** Workspaces are named up to this many; past it, a count of the rest. */
export const NAMED_WORKSPACES = 5;

/** e.g. `app-prod, data-prod`, or `a, b, c, d, e and 3 more`. */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMED_WORKSPACES).join(', ');
  return names.length > NAMED_WORKSPACES ? `${shown} and ${names.length - NAMED_WORKSPACES} more` : shown;
}

/**
 * e.g. `evidence (30 days): fails in 2 of 37 workspaces in scope (app-prod, data-prod); 31 pass; 4 never evaluated it`,
 * or `evidence (30 days): not yet evaluated in any of the 3 workspaces in scope`.
 */
export function evidenceLine(e: ChangeEvidence): string {
  const them = e.policies.length === 1 ? 'it' : 'them';
  const partial = e.partial ? '; partial: the read stopped before it read every run (evidence.max-requests, evidence.max-seconds, or 48 MiB of answers)' : '';
  const head = `evidence (${e.window}): `;
  if (e.in_scope === 0) return `${head}no workspace in scope${partial}`;
  if (e.evaluated === 0) return `${head}not yet evaluated in any of the ${count(e.in_scope, 'workspace')} in scope${partial}`;
  const fails = e.failing.length === 0 ? `fails in none of the ${count(e.in_scope, 'workspace')} in scope` : `fails in ${e.failing.length} of ${count(e.in_scope, 'workspace')} in scope (${someNames(e.failing)})`;
  const never = e.not_evaluated === 0 ? '' : `; ${e.not_evaluated} never evaluated ${them}`;
  return `${head}${fails}; ${e.passing} pass${never}${partial}`;
}

/**
 * What the runs say of the levels before of a versioned set's new content, e.g. `already enforced at hard-mandatory in
 * the latest runs: s3-public-access` and `old level unknown (no run in scope evaluated it), taken as raised: s3-logging`.
 */
export function levelLines(e: ChangeEvidence): string[] {
  const byLevel = new Map<string, string[]>();
  for (const { policy, level } of e.already_enforced ?? []) byLevel.set(level, [...(byLevel.get(level) ?? []), policy]);
  const lines = [...byLevel].map(([level, policies]) => `already enforced at ${level} in the latest runs: ${someNames(policies)}`);
  const unknown = e.level_unknown ?? [];
  if (unknown.length > 0) lines.push(`old level unknown (no run in scope evaluated it), taken as raised: ${someNames(unknown)}`);
  const unsaid = e.unsaid ?? [];
  if (unsaid.length > 0) lines.push(`latest run could not say (a check, evaluation or stage errored, unreachable or canceled, or a check gave only counts) in ${someNames(unsaid)}`);
  const speculative = e.failing_speculative ?? [];
  if (speculative.length > 0) lines.push(`warning: speculative plans (which cannot apply) fail in ${someNames(speculative)}`);
  return lines;
}

/** e.g. `would block runs in app-prod, data-prod`; null when the change blocks none. */
export function blockingLine(e: ChangeEvidence): string | null {
  return e.blocking.length === 0 ? null : `would block runs in ${someNames(e.blocking)}`;
}

function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).concat('Z');
}

/** What holds a rollout: clean runs (one a workspace), then failing, errored and never-evaluated workspaces, a partial read, its time. */
function progressParts(s: RolloutStatus): string[] {
  const parts = [`${s.cleanRuns} of ${count(s.neededRuns, 'clean run')}`];
  if (s.failing.length > 0) parts.push(`fails in ${someNames(s.failing)}${s.allowedFailing > 0 ? ` (${s.allowedFailing} allowed)` : ''}`);
  if (s.errored.length > 0) parts.push(`errored in ${someNames(s.errored)}`);
  if (s.notEvaluated !== undefined && s.notEvaluated > 0) parts.push(`${s.notEvaluated} of ${count(s.inScope ?? 0, 'workspace')} in scope never evaluated it`);
  if (s.partial) parts.push('evidence partial');
  if (s.waiting) parts.push(`not before ${isoMinute(s.readyAt)}`);
  return parts;
}

/** e.g. `policy "s3-encryption": held at advisory by its rollout: 12 of 20 clean runs; fails in app-prod`. */
export function rolloutLine(s: RolloutStatus): string {
  const head = s.set === undefined ? `policy "${s.policy}": ` : `policy "${s.policy}" of set "${s.set}": `;
  if (s.state === 'starting') {
    const time = s.readyAt > s.startedAt ? `, not before ${isoMinute(s.readyAt)}` : '';
    return `${head}rollout starts: held at ${s.start} until ${count(s.neededRuns, 'clean run')}, at most ${count(s.allowedFailing, 'failing workspace')}${time}; then ${s.level}`;
  }
  if (s.state === 'promoted') return `${head}promoted to ${s.level} by its rollout: ${s.cleanRuns} of ${count(s.neededRuns, 'clean run')}`;
  return `${head}held at ${s.start} by its rollout: ${progressParts(s).join('; ')}`;
}

/** A change that raises several policies names this many of them, most failing first; past it, a count of the rest. */
export const NAMED_POLICIES = 10;

/**
 * Each raised policy's own evidence, for a change that raises several: a heading, then e.g. `s3-logging
 * (hard-mandatory): fails in 2 (app-prod, data-prod); 1 pass; 1 never evaluated it`, at most NAMED_POLICIES, then
 * how many more and how many of them fail somewhere. Empty for a change of one policy.
 */
export function policyLines(e: ChangeEvidence): { heading: string; lines: string[] } | null {
  const all = e.by_policy ?? [];
  if (all.length === 0) return null;
  const lines = all.slice(0, NAMED_POLICIES).map((p) => {
    const fails = p.failing.length === 0 ? 'fails in none' : `fails in ${p.failing.length} (${someNames(p.failing)})`;
    const never = p.not_evaluated === 0 ? '' : `; ${p.not_evaluated} never evaluated it`;
    return `${p.policy} (${p.level}): ${fails}; ${p.passing} pass${never}`;
  });
  const rest = all.slice(NAMED_POLICIES);
  if (rest.length > 0) {
    const failing = rest.filter((p) => p.failing.length > 0).length;
    lines.push(`… and ${count(rest.length, 'more policy', 'more policies')}, ${failing === 0 ? 'none' : failing} of them failing anywhere (the JSON plan has each)`);
  }
  const heading = all.length > NAMED_POLICIES ? `by policy (${NAMED_POLICIES} of ${all.length} raised, most failing first):` : `by policy (${count(all.length, 'raised policy', 'raised policies')}):`;
  return { heading, lines };
}

/**
 * Under a versioned set's content: the levels the uploaded version holds back while its rollout holds them, e.g.
 * `the upload holds back 2 levels (the set's rollout, see Rollouts): s3-logging, s3-versioning at advisory`; null
 * when it holds none back.
 */
export function heldBackLine(held: ReadonlyArray<{ name: string; level: string }> | undefined): string | null {
  if (held === undefined || held.length === 0) return null;
  const byLevel = new Map<string, string[]>();
  for (const { name, level } of held) byLevel.set(level, [...(byLevel.get(level) ?? []), name]);
  const listed = [...byLevel].map(([level, names]) => `${someNames(names)} at ${level}`).join('; ');
  return `the upload holds back ${count(held.length, 'level')} (the set's rollout, see Rollouts): ${listed}; the folder is uploaded as declared once each is promoted`;
}

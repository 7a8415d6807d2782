/** The control endpoint's run bodies, checked; every problem is a 400 naming the key. */
import { badRequest, isObject } from './http.js';
import type { RunTable } from './run-builder.js';
import type { OutcomeStatus } from './run-records.js';

const OUTCOMES: readonly OutcomeStatus[] = ['passed', 'failed', 'errored'];
const STATUS_WORD = /^[a-z][a-z_]*$/;

/**
 * `{"workspace": "ws-…", "outcomes": {"policy": "failed"}, "status": "applied", "created-at": "…",
 * "evaluation": "unreachable" | "errored" | "canceled" | "queued", "check": "unreachable" | "errored" | "canceled" |
 * "overridden", "check-detail": false, "stage": "errored" | "unreachable" | "canceled", "plan-only": true,
 * "is-destroy": true, "refresh-only": true, "source": "tfe-ui", "trigger-reason": "manual", "print": {"policy": ["line"]}}`;
 * only `workspace` is required.
 */
export function readRunTable(body: unknown, nowIso: string): RunTable {
  if (!isObject(body) || typeof body.workspace !== 'string') throw badRequest('body must be {"workspace": "ws-…", "outcomes": {"policy name": "passed" | "failed" | "errored"}, ...}');
  const outcomes = body.outcomes ?? {};
  if (!isObject(outcomes)) throw badRequest('outcomes must map policy names to passed, failed or errored');
  for (const [name, status] of Object.entries(outcomes)) {
    if (!OUTCOMES.includes(status as OutcomeStatus)) throw badRequest(`outcomes["${name}"] must be passed, failed or errored`);
  }
  const table: RunTable = { workspaceId: body.workspace, outcomes: outcomes as Record<string, OutcomeStatus>, status: readStatus(body.status) ?? 'applied', createdAt: nowIso };
  if (body['created-at'] !== undefined) table.createdAt = dateTime(body['created-at']);
  if (body.evaluation !== undefined) table.evaluation = oneOf(body.evaluation, 'evaluation', ['unreachable', 'errored', 'canceled', 'queued'] as const);
  if (body.check !== undefined) table.check = oneOf(body.check, 'check', ['unreachable', 'errored', 'canceled', 'overridden'] as const);
  if (body.stage !== undefined) table.stage = oneOf(body.stage, 'stage', ['errored', 'unreachable', 'canceled'] as const);
  if (body['check-detail'] !== undefined) table.checkDetail = flag(body['check-detail'], 'check-detail');
  const kind: NonNullable<RunTable['kind']> = {};
  for (const [key, name] of [['plan-only', 'planOnly'], ['is-destroy', 'isDestroy'], ['refresh-only', 'refreshOnly']] as const) {
    if (body[key] !== undefined) kind[name] = flag(body[key], key);
  }
  for (const [key, name] of [['source', 'source'], ['trigger-reason', 'triggerReason']] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !STATUS_WORD.test(value.replaceAll('-', '_'))) throw badRequest(`${key} must be a word such as tfe-api or manual`);
    kind[name] = value;
  }
  if (Object.keys(kind).length > 0) table.kind = kind;
  if (body.print !== undefined) table.prints = readPrints(body.print);
  return table;
}

function oneOf<const T extends string>(value: unknown, key: string, words: readonly T[]): T {
  if (!words.includes(value as T)) throw badRequest(`${key} must be ${words.join(', ')}`);
  return value as T;
}

function flag(value: unknown, key: string): boolean {
  if (typeof value !== 'boolean') throw badRequest(`${key} must be true or false`);
  return value;
}

/** A run status word (`applied`, `post_plan_running`, …); undefined when absent. */
export function readStatus(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !STATUS_WORD.test(value)) throw badRequest('status must be a run status word such as applied or post_plan_running');
  return value;
}

function readPrints(value: unknown): Record<string, string[]> {
  if (!isObject(value)) throw badRequest('print must map policy names to lists of lines');
  const prints: Record<string, string[]> = {};
  for (const [name, lines] of Object.entries(value)) {
    if (!Array.isArray(lines) || !lines.every((line) => typeof line === 'string')) throw badRequest(`print["${name}"] must be a list of lines`);
    prints[name] = lines as string[];
  }
  return prints;
}

function dateTime(value: unknown): string {
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw badRequest('created-at must be an ISO 8601 date-time');
  return new Date(time).toISOString();
}

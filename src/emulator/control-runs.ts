/**
 * The control endpoint's runs: `POST /_emulator/runs` adds a run whose outcomes follow a table, played against the
 * sets that apply to the workspace now (run-builder.ts); `PATCH /_emulator/runs/ID` moves a run to another status, and
 * a run that moves past its policy evaluation shows its outcomes.
 */
import { badRequest, isObject, notFound } from './http.js';
import { tableRunSpec } from './run-builder.js';
import { readRunTable, readStatus } from './run-input.js';
import { addRun, moveRun as moveRunTo, type RunRecord, type RunStore } from './run-records.js';
import type { Context } from './router.js';

/** What the control endpoint answers of a run: its ids, and the ids of its stages, evaluations and set outcomes. */
export function runControlAnswer(runs: RunStore, run: RunRecord): Record<string, unknown> {
  const stages = run.stageIds.flatMap((id) => runs.stages.get(id) ?? []);
  const evaluations = stages.flatMap((stage) => stage.evaluationIds.flatMap((id) => runs.evaluations.get(id) ?? []));
  return {
    id: run.id,
    status: run.status,
    'created-at': run.createdAt,
    'task-stages': stages.map((stage) => ({ id: stage.id, stage: stage.stage })),
    'policy-evaluations': evaluations.map((evaluation) => ({ id: evaluation.id, status: evaluation.status, 'policy-set-outcomes': evaluation.setOutcomeIds })),
  };
}

export function addTableRun(ctx: Context, body: unknown): Record<string, unknown> {
  const table = readRunTable(body, new Date(ctx.now()).toISOString());
  const org = [...ctx.store.orgs.values()].find((candidate) => candidate.workspaces.has(table.workspaceId));
  if (org === undefined) throw badRequest(`workspace ${table.workspaceId} is in no organization`);
  const run = addRun(ctx.store.runs, tableRunSpec(ctx.store, org, table));
  return runControlAnswer(ctx.store.runs, run);
}

export function moveRun(ctx: Context, body: unknown): Record<string, unknown> {
  const run = ctx.store.runs.runs.get(ctx.params.id ?? '');
  if (run === undefined) throw notFound();
  const status = isObject(body) ? readStatus(body.status) : undefined;
  if (status === undefined) throw badRequest('body must be {"status": "applied"} (a run status word)');
  moveRunTo(ctx.store.runs, run, status);
  return runControlAnswer(ctx.store.runs, run);
}

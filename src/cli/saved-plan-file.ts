/**
 * Reading a saved plan file (`--show FILE`, `--reconcile --plan FILE`): its size capped before it is read, its
 * version checked, then the whole document checked against the published schema (`schemas/plan.schema.json`, whose
 * saved-plan branch fixes each change's shape by its resource type). A problem names the file, the source, the
 * change and the key. A plan saved in an older format is refused, and a new plan must be made.
 */
import { open } from 'node:fs/promises';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { errorMessage, UsageError } from '../errors.js';
import { SAVED_PLAN_VERSION, type SavedPlan } from '../plan/saved.js';
import { describeValue, keyLabel, pointerPath, schemaErrors, schemaMessage, type KeyPath } from '../yaml/index.js';

/** The largest saved plan read: thousands of changes fit in a few megabytes. */
export const MAX_SAVED_PLAN_BYTES = 32 * 1024 * 1024;

const MAKE_ONE = 'make one with --dry-run --out FILE';
/** Problems listed per file at most; the rest are counted. */
const SHOWN = 10;

/** The text of a plan saved with `--dry-run --out FILE`, refused unread above MAX_SAVED_PLAN_BYTES; a usage error names the file. */
export async function readSavedPlanText(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_SAVED_PLAN_BYTES) throw tooLarge(file, size);
    const buffer = Buffer.alloc(MAX_SAVED_PLAN_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SAVED_PLAN_BYTES) throw tooLarge(file, length);
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  } finally {
    await handle.close();
  }
}

function tooLarge(file: string, size: number): UsageError {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return new UsageError(`the saved plan ${file} is ${mb(size)}, more than the ${mb(MAX_SAVED_PLAN_BYTES)} a saved plan may be; refusing to read it (${MAKE_ONE})`);
}

/** A saved plan's text and what it holds, checked against the schema; a file that is not one is a usage error naming it. */
export async function readSavedPlanFile(file: string): Promise<{ text: string; plan: SavedPlan }> {
  const text = await readSavedPlanText(file);
  try {
    return { text, plan: parseSavedPlan(text, file) };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** A saved plan's text read into a SavedPlan, or an error naming the file and every problem (at most SHOWN). Pure. */
export function parseSavedPlan(content: string, file: string): SavedPlan {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    throw new Error(`${file} is not a saved plan: ${errorMessage(error)}`);
  }
  const top = isRecord(document) ? document : {};
  const version = top['saved_plan_version'];
  if (version === undefined) throw new Error(`${file} is not a saved plan (no saved_plan_version); ${MAKE_ONE}`);
  if (version === '1') {
    throw new Error(`${file} was saved by an older version (saved_plan_version "1"), whose changes this version cannot check; make a new plan with --dry-run --out FILE`);
  }
  if (version !== SAVED_PLAN_VERSION) throw new Error(`${file} has saved_plan_version ${quoted(version)}; this version reads "${SAVED_PLAN_VERSION}"`);
  const problems = wordedErrors(schemaErrors('plan', document), document);
  if (problems.length > 0) {
    const more = problems.length > SHOWN ? `\n  … and ${problems.length - SHOWN} more` : '';
    throw new Error(`${file} is not a saved plan this version can apply; refusing it:\n${problems.slice(0, SHOWN).map((p) => `  ${file}: ${p}`).join('\n')}${more}`);
  }
  const plan = document as SavedPlan;
  const seen = new Set<string>();
  for (const source of plan.sources) {
    if (seen.has(source.name)) throw new Error(`${file} lists source "${source.name}" twice; refusing to apply it`);
    seen.add(source.name);
  }
  return plan;
}

/**
 * The schema's errors as sentences, each naming the source and change it is in, then the key within the change.
 * A failed `anyOf` of null or one shape says what is wrong inside that shape; the errors of `if` (which only say that
 * a `then` failed) are dropped, as is everything a wrong type also trips.
 */
function wordedErrors(errors: readonly ErrorObject[], document: unknown): string[] {
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type' && !isNullBranch(e)).map((e) => e.instancePath));
  const kept = errors.filter((e) => {
    if (e.keyword === 'if' || isNullBranch(e)) return false;
    if (e.keyword === 'anyOf' && isRecord(e.data)) return false;
    return e.keyword === 'type' || !wrongType.has(e.instancePath);
  });
  const sentences = kept.map((error) => worded(error, document));
  return [...new Set(sentences)];
}

/** The `{ "type": "null" }` branch of a nullable shape: its error says nothing when the value is a shape. */
function isNullBranch(error: ErrorObject): boolean {
  return error.keyword === 'type' && /\/(anyOf|oneOf)\/0\/type$/.test(error.schemaPath) && error.data !== null;
}

function worded(error: ErrorObject, document: unknown): string {
  const path = pointerPath(error.instancePath);
  const [where, rest] = place(path, document);
  const label: KeyPath = rest.length === 0 ? [where.length === 0 ? 'the plan' : 'the change'] : rest;
  const resource = changeAt(path, document)?.['resource'];
  if (error.keyword === 'false schema') return `${where}${keyLabel(label)} is not a key of a change of ${quoted(resource)}`;
  if (error.keyword === 'not') return `${where}the change has "outcome": a saved plan is made by --dry-run, not by --reconcile`;
  const message = schemaMessage(error, label);
  return `${where}${error.keyword === 'type' ? message.replace(/, not (.*)$/, `, not ${describeValue(error.data)}${typeWord(error.data)}`) : message}`;
}

/** Where a value is: `source "x": the change of "policy" "y": `, and its key path within that change (or source). */
function place(path: KeyPath, document: unknown): [string, KeyPath] {
  if (path[0] !== 'sources' || typeof path[1] !== 'number') return ['', path];
  const source = (isRecord(document) && Array.isArray(document['sources']) ? document['sources'][path[1]] : undefined) as unknown;
  const sourceName = isRecord(source) && typeof source['name'] === 'string' ? `source "${source['name']}": ` : `source ${path[1] + 1}: `;
  if (path[2] !== 'changes' || typeof path[3] !== 'number') return [sourceName, path.slice(2)];
  const change = changeAt(path, document);
  const name = change !== undefined && typeof change['name'] === 'string'
    ? `the change of ${quoted(change['resource'])} "${change['name']}": `
    : `the change ${path[3] + 1} (it has no name): `;
  return [`${sourceName}${name}`, path.slice(4)];
}

function changeAt(path: KeyPath, document: unknown): Record<string, unknown> | undefined {
  if (path[0] !== 'sources' || typeof path[1] !== 'number' || path[2] !== 'changes' || typeof path[3] !== 'number') return undefined;
  const sources = isRecord(document) ? document['sources'] : undefined;
  const source = Array.isArray(sources) ? (sources[path[1]] as unknown) : undefined;
  const changes = isRecord(source) ? source['changes'] : undefined;
  const change = Array.isArray(changes) ? (changes[path[3]] as unknown) : undefined;
  return isRecord(change) ? change : undefined;
}

function typeWord(value: unknown): string {
  if (value === null || Array.isArray(value) || typeof value === 'object') return '';
  return ` (a ${typeof value})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value as a message quotes it: a string in quotes, anything else as JSON with its type. */
function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `${JSON.stringify(value) ?? String(value)} (${type})`;
}

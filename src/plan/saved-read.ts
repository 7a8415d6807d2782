/**
 * Reads a saved plan file's text into a SavedPlan: its version checked, each source and each change read in shape
 * (read-change.ts) into the very Change a fresh plan holds. A problem names the file, the source and the change.
 * Only `saved_plan_version` "2" is read: a plan saved in an older format is refused, and a new plan must be made. Pure.
 */
import { errorMessage } from '../errors.js';
import { readChange } from './read-change.js';
import { entries, listOf, nullable, quoted, record, ShapeError, text } from './read-shape.js';
import { SAVED_PLAN_VERSION, type SavedPlan, type SavedSource } from './saved.js';
import type { Change } from './types.js';

const MAKE_ONE = 'make one with --dry-run --out FILE';

export function parseSavedPlan(content: string, file: string): SavedPlan {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    throw new Error(`${file} is not a saved plan: ${errorMessage(error)}`);
  }
  const top = document !== null && typeof document === 'object' && !Array.isArray(document) ? record(document, 'the plan') : new Map<string, unknown>();
  const version = top.get('saved_plan_version');
  if (version === undefined) throw new Error(`${file} is not a saved plan (no saved_plan_version); ${MAKE_ONE}`);
  if (version === '1') {
    throw new Error(`${file} was saved by an older version (saved_plan_version "1"), whose changes this version cannot check; make a new plan with --dry-run --out FILE`);
  }
  if (version !== SAVED_PLAN_VERSION) throw new Error(`${file} has saved_plan_version ${quoted(version)}; this version reads "${SAVED_PLAN_VERSION}"`);
  const sources = top.get('sources');
  if (!Array.isArray(sources)) throw new Error(`${file} is not a saved plan: "sources" must list sources with a name and an organization`);
  const seen = new Set<string>();
  const read = sources.map((source: unknown, index) => {
    const saved = savedSource(source, file, index);
    if (seen.has(saved.name)) throw new Error(`${file} lists source "${saved.name}" twice; refusing to apply it`);
    seen.add(saved.name);
    return saved;
  });
  return { saved_plan_version: SAVED_PLAN_VERSION, sources: read };
}

function savedSource(value: unknown, file: string, index: number): SavedSource {
  let e: Map<string, unknown>;
  let name: string;
  try {
    e = entries(value, 'it', ['name', 'organization', 'revision', 'changes', 'warnings', 'errors']);
    name = text(e.get('name'), 'its name');
  } catch (error) {
    throw new Error(`${file}: source ${index + 1} is not a source with a name and an organization: ${errorMessage(error)}`);
  }
  const at = `${file}: source "${name}"`;
  try {
    return {
      name,
      organization: text(e.get('organization'), 'organization'),
      revision: nullable(text)(e.get('revision'), 'revision'),
      changes: nullable(changes(at))(e.get('changes'), 'changes'),
      warnings: listOf(text)(e.get('warnings'), 'warnings'),
      errors: listOf(text)(e.get('errors'), 'errors'),
    };
  } catch (error) {
    if (error instanceof ShapeError) throw new Error(`${at}: ${error.message}; refusing to apply it`);
    throw error;
  }
}

/** Each change, a problem naming it by its resource and name as saved. */
function changes(at: string): (value: unknown, key: string) => Change[] {
  return (value, key) => listOf((change: unknown, index: string): Change => {
    try {
      return readChange(change);
    } catch (error) {
      throw new Error(`${at}: ${changeName(change, index)}: ${errorMessage(error)}; refusing to apply it`);
    }
  })(value, key);
}

function changeName(change: unknown, index: string): string {
  const e = change !== null && typeof change === 'object' && !Array.isArray(change) ? record(change, index) : new Map<string, unknown>();
  const name = e.get('name');
  if (typeof name !== 'string') return `the change ${index} (it has no name)`;
  return `the change of ${quoted(e.get('resource'))} "${name}"`;
}

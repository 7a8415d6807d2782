import assert from 'node:assert/strict';
import { ValidationError, type SourceProblem } from '../../src/errors.js';

/** Awaits a read that must fail with a ValidationError and returns its problems. */
export async function problemsOf(read: Promise<unknown>): Promise<SourceProblem[]> {
  try {
    await read;
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected the read to fail with a ValidationError');
}

/** The one problem about `file`; fails when there is none or more than one. */
export function problemFor(problems: readonly SourceProblem[], file: string): SourceProblem {
  const found = problems.filter((problem) => problem.file === file);
  assert.equal(found.length, 1, `expected one problem for ${file}, got: ${JSON.stringify(problems, null, 1)}`);
  return found[0] as SourceProblem;
}

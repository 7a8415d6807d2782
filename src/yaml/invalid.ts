import { ValidationError, type SourceProblem } from '../errors.js';
import { count } from '../plural.js';

/** The error for a file with problems, e.g. `config cfg.yaml is invalid (2 problems)`; problems sorted by line. */
export function invalidFile(what: string, file: string, problems: SourceProblem[]): ValidationError {
  const sorted = [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return new ValidationError(`${what} ${file} is invalid (${count(problems.length, 'problem')})`, sorted);
}

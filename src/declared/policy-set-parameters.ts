import type { SourceProblem } from '../errors.js';
import { learnSecrets } from '../redact.js';
import { readSensitive, sensitiveFrom, type SensitiveContext } from './sensitive-values.js';
import { withFile } from './settings-file.js';
import type { SetParameter } from './types.js';

/**
 * A set's parameters as declared: a plain `key: value` as text; `{env: NAME}` or `{file: PATH}` is a sensitive value,
 * read here when the operator allows it (sensitive-values.ts) and learned by the API client's redactor. Each problem
 * names the file, the line of its key, and the key; never the value, nor a path of this host.
 */
export function readParameters(
  raw: unknown, file: string, lineOf: (key: string) => number | undefined, context: SensitiveContext,
): { parameters: SetParameter[] | null; problems: SourceProblem[] } {
  if (raw === undefined || raw === null || typeof raw !== 'object') return { parameters: null, problems: [] };
  const parameters: SetParameter[] = [];
  const problems: SourceProblem[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (value === null || typeof value !== 'object') {
      parameters.push({ key, value: String(value), sensitive: false, from: null });
      continue;
    }
    const from = sensitiveFrom(value as { env?: string; file?: string });
    const read = readSensitive(from, context);
    if ('problem' in read) problems.push(withFile(file, lineOf(key), `parameters.${key}: ${read.problem}`));
    else parameters.push({ key, value: read.value, sensitive: true, from });
  }
  learnSecrets(parameters.flatMap((p) => (p.sensitive && p.value !== null ? [p.value] : [])));
  return { parameters, problems };
}

/** A sensitive value read again for its upload, from where the plan says it came (`env:NAME`, `file:PATH`), by the same rules. */
export function sensitiveValue(from: string, context: SensitiveContext): string {
  const read = readSensitive(from, { ...context, allowedOnly: false });
  if ('problem' in read) throw new Error(read.problem);
  if (read.value === null) throw new Error(`${from} was not read`);
  learnSecrets([read.value]);
  return read.value;
}

/** The `tokens:` of a pool file: read, and checked against the token folder the operator allows (token-target.ts). */
import type { SourceProblem } from '../errors.js';
import type { YamlDocument } from '../yaml/index.js';
import { keyLabel } from '../yaml/index.js';
import { parseDuration } from './duration.js';
import { withFile } from './settings-file.js';
import { tokenTarget } from './token-target.js';
import type { DeclaredPool, DeclaredToken } from './types.js';

/** The declared tokens, or null when the file has no `tokens:` (the pool's tokens are then left alone). */
export function readTokens(value: unknown): DeclaredToken[] | null {
  if (!Array.isArray(value)) return null;
  return value.flatMap((entry): DeclaredToken[] => {
    if (typeof entry !== 'object' || entry === null) return [];
    const raw = entry as Record<string, unknown>;
    if (typeof raw.description !== 'string') return [];
    const deliver = raw['deliver-to'] as { file?: unknown; secret?: unknown; key?: unknown } | undefined;
    const rotateAfter = typeof raw['rotate-after'] === 'string' ? raw['rotate-after'] : null;
    const overlap = typeof raw.overlap === 'string' ? raw.overlap : null;
    return [{
      description: raw.description,
      deliverTo: typeof deliver?.file === 'string' ? { file: deliver.file }
        : typeof deliver?.secret === 'string' && typeof deliver.key === 'string' ? { secret: deliver.secret, key: deliver.key } : null,
      rotateAfter, rotateAfterMs: rotateAfter === null ? null : parseDuration(rotateAfter),
      overlap, overlapMs: overlap === null ? null : parseDuration(overlap),
    }];
  });
}

/**
 * A description given twice in a pool, a file two tokens deliver to, and a `deliver-to` the token folder does not
 * allow (none is given, or the file leads out of it), each with its file and line, before any request.
 */
export function tokenProblems(pools: ReadonlyArray<{ pool: DeclaredPool; doc: YamlDocument | null }>, tokenDir: string | null, secrets: readonly string[] = []): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const deliveredBy = new Map<string, string>();
  for (const { pool, doc } of pools) {
    const seen = new Set<string>();
    for (const [index, token] of (pool.tokens ?? []).entries()) {
      const at = (key: Array<string | number>) => doc?.lineOf(['tokens', index, ...key]);
      if (seen.has(token.description)) problems.push(withFile(pool.file, at(['description']), `tokens: "${token.description}" is declared twice; a description names one token of the pool`));
      seen.add(token.description);
      if (token.overlap !== null && token.rotateAfter === null) problems.push(withFile(pool.file, at(['overlap']), `${keyLabel(['tokens', index, 'overlap'])} is only read with rotate-after`));
      const deliver = token.deliverTo;
      if (deliver === null) continue;
      const owner = `${pool.file} token "${token.description}"`;
      if ('secret' in deliver) {
        const where = `${keyLabel(['tokens', index, 'deliver-to', 'secret'])} "${deliver.secret}"`;
        if (!secrets.includes(deliver.secret)) {
          problems.push(withFile(pool.file, at(['deliver-to', 'secret']), `${where} is not a Secret the operator allows: the operator names each one (tokens.secrets in the config)`));
          continue;
        }
        const place = `secret:${deliver.secret}/${deliver.key}`;
        const other = deliveredBy.get(place);
        if (other !== undefined) problems.push(withFile(pool.file, at(['deliver-to', 'key']), `${where} key "${deliver.key}" is also where ${other} is delivered; each token needs its own key`));
        deliveredBy.set(place, owner);
        continue;
      }
      const where = `${keyLabel(['tokens', index, 'deliver-to', 'file'])} "${deliver.file}"`;
      const target = tokenTarget(tokenDir, deliver.file);
      if ('problem' in target) {
        problems.push(withFile(pool.file, at(['deliver-to', 'file']), `${where}: ${target.problem}`));
        continue;
      }
      const other = deliveredBy.get(target.path);
      if (other !== undefined) problems.push(withFile(pool.file, at(['deliver-to', 'file']), `${where} is also where ${other} is delivered; each token needs its own file`));
      deliveredBy.set(target.path, owner);
    }
  }
  return problems;
}

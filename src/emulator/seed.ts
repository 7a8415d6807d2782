/** Parsing the emulator's seed YAML (kebab-case keys) into a `Seed`; every problem names the file and line. */
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { ValidationError, type SourceProblem } from '../errors.js';
import type { Seed, SeedOrganization } from './types.js';
import { readFaults, readList, readOrganization, type Checker, type Path } from './seed-fields.js';

export function parseSeed(yamlText: string, file: string): Seed {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter });
  const problems: SourceProblem[] = doc.errors.map((error) => ({
    file,
    line: error.linePos?.[0]?.line,
    message: error.message.split('\n')[0] ?? error.message,
  }));
  if (problems.length > 0) throw new ValidationError(`${file}: invalid seed YAML`, problems);
  const check: Checker = { problem: (path, message) => problems.push({ file, line: lineOf(doc, lineCounter, path), message }) };
  const seed = readSeed(doc.toJS() as unknown, check);
  if (problems.length > 0) throw new ValidationError(`${file}: invalid emulator seed (${problems.length} problems)`, problems);
  return seed;
}

function readSeed(value: unknown, check: Checker): Seed {
  const seed: Seed = { organizations: [] };
  if (value === null || value === undefined) return seed;
  if (typeof value !== 'object' || Array.isArray(value)) {
    check.problem([], 'the seed must be a mapping');
    return seed;
  }
  const top = value as Record<string, unknown>;
  for (const key of Object.keys(top)) {
    if (!['token', 'rate-limit', 'organizations', 'faults'].includes(key)) check.problem([key], `unknown key "${key}"`);
  }
  if (top.token !== undefined) {
    if (typeof top.token === 'string' && top.token !== '') seed.token = top.token;
    else check.problem(['token'], 'token must be a non-empty string');
  }
  if (top['rate-limit'] !== undefined) {
    const limit = top['rate-limit'];
    if (typeof limit === 'number' && Number.isInteger(limit) && limit >= 0) seed.rateLimit = limit;
    else check.problem(['rate-limit'], 'rate-limit must be a whole number of requests per second (0 turns it off)');
  }
  seed.organizations = readList(top.organizations, ['organizations'], check, readOrganization);
  const names = new Set<string>();
  seed.organizations.forEach((org: SeedOrganization, i) => {
    if (names.has(org.name)) check.problem(['organizations', i, 'name'], `organization "${org.name}" is listed twice`);
    names.add(org.name);
  });
  if (top.faults !== undefined) seed.faults = readFaults(top.faults, ['faults'], check);
  return seed;
}

/** The line of the deepest node on `path` that exists. */
function lineOf(doc: Document, lineCounter: LineCounter, path: Path): number | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}

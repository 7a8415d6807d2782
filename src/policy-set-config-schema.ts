/**
 * The schema of a policy set's config file, checked the same way by `--validate` (declared/policy-set-config.ts) and by the
 * emulator's ingestion: `sentinel.hcl` (or `native.hcl`) takes `policy "NAME"` (source, enforcement_level, params),
 * `import "module" "NAME"` (source), `import "static" "NAME"` (source, format), `import "plugin" "NAME"` (source,
 * args, env, config), `module "NAME"` (source: the form before `import "module"`), `param "NAME"` (value) and
 * `sentinel` (features), as Sentinel's configuration reference lists them; `policies.hcl` takes `policy "NAME"` (query,
 * enforcement_level). Each problem is one diagnostic with its line and column: an unknown block or attribute with the
 * closest known name, an enforcement level its kind does not take, a `param` block that no policy of the set declares.
 * A key of a policy's `params` that its code does not declare is not refused: the vendor's own AWS FSBP library passes
 * one (`allow_users_to_change_password_param`), so the service takes it.
 */
import { LEVELS_BY_KIND, type PolicyKind } from './model.js';
import { outlineHcl, type OutlineItem } from './hcl-outline.js';
import { closest } from './suggest.js';

export interface ConfigDiagnostic {
  line: number;
  column: number;
  message: string;
}

/** The most diagnostics reported for one file; the rest are counted. */
export const MAX_CONFIG_DIAGNOSTICS = 20;

interface BlockRule {
  /** Labels after the block type (after `import "<kind>"` for an import). */
  labels: number;
  attributes: readonly string[];
}

const NATIVE_BLOCKS: Readonly<Record<string, BlockRule>> = {
  policy: { labels: 1, attributes: ['source', 'enforcement_level', 'params'] },
  'import "module"': { labels: 1, attributes: ['source'] },
  'import "static"': { labels: 1, attributes: ['source', 'format'] },
  'import "plugin"': { labels: 1, attributes: ['source', 'args', 'env', 'config'] },
  module: { labels: 1, attributes: ['source'] },
  param: { labels: 1, attributes: ['value'] },
  sentinel: { labels: 0, attributes: ['features'] },
};
const OPA_BLOCKS: Readonly<Record<string, BlockRule>> = { policy: { labels: 1, attributes: ['query', 'enforcement_level'] } };
const IMPORT_KINDS = ['module', 'static', 'plugin'];

/**
 * What the check reads besides the outline: a policy's `enforcement_level` and `source` as parsed, and the parameters
 * a policy's source declares (`param NAME` in its code; null when its code cannot be read: a remote source).
 */
export interface ConfigFacts {
  level(policy: string): unknown;
  source(policy: string): string | null;
  declaredParams(source: string): ReadonlySet<string> | null;
}

/** Every problem of the file's schema, in the order of the file. */
export function checkSetConfigSchema(text: string, kind: PolicyKind, facts: ConfigFacts): ConfigDiagnostic[] {
  const rules = kind === 'opa' ? OPA_BLOCKS : NATIVE_BLOCKS;
  const out: ConfigDiagnostic[] = [];
  const outline = outlineHcl(text);
  for (const item of outline) {
    if (item.kind === 'attribute') {
      out.push(at(item, `"${item.name}" is not allowed at the top of the file, which takes only the blocks ${topNames(rules).join(', ')}`));
      continue;
    }
    const rule = blockRule(item, rules, out);
    if (rule === null) continue;
    const title = blockTitle(item);
    if (item.labels.length !== labelCount(item, rule)) out.push(at(item, `${title} takes ${labelCount(item, rule)} label${labelCount(item, rule) === 1 ? '' : 's'}`));
    for (const inner of item.items) {
      if (inner.kind === 'block') out.push(at(inner, `${title}: unknown block "${inner.name}"${suggestion(inner.name, rule.attributes)}`));
      else if (!rule.attributes.includes(inner.name)) out.push(at(inner, `${title}: unknown attribute "${inner.name}"${suggestion(inner.name, rule.attributes)}`));
    }
    if (item.name === 'policy') out.push(...policyProblems(item, kind, facts));
  }
  if (kind !== 'opa') out.push(...unusedParamBlocks(outline, facts));
  return out;
}

function blockRule(item: OutlineItem, rules: Readonly<Record<string, BlockRule>>, out: ConfigDiagnostic[]): BlockRule | null {
  if (item.name === 'import' && rules === NATIVE_BLOCKS) {
    const type = item.labels[0] ?? '';
    const rule = rules[`import "${type}"`];
    if (rule === undefined) out.push(at(item, `unknown import "${type}"${suggestion(type, IMPORT_KINDS)} (an import is "module", "static" or "plugin")`));
    return rule ?? null;
  }
  const rule = rules[item.name];
  if (rule === undefined) out.push(at(item, `unknown block "${item.name}"${suggestion(item.name, topNames(rules))}`));
  return rule ?? null;
}

function labelCount(item: OutlineItem, rule: BlockRule): number {
  return item.name === 'import' ? rule.labels + 1 : rule.labels;
}

function topNames(rules: Readonly<Record<string, BlockRule>>): string[] {
  return [...new Set(Object.keys(rules).map((key) => key.split(' ')[0]!))];
}

function blockTitle(item: OutlineItem): string {
  return [item.name, ...item.labels.map((label) => `"${label}"`)].join(' ');
}

function policyProblems(item: OutlineItem, kind: PolicyKind, facts: ConfigFacts): ConfigDiagnostic[] {
  const name = item.labels[0] ?? '';
  const out: ConfigDiagnostic[] = [];
  const levelItem = item.items.find((inner) => inner.kind === 'attribute' && inner.name === 'enforcement_level');
  const level = facts.level(name);
  const levels: readonly string[] = LEVELS_BY_KIND[kind];
  if (levelItem !== undefined && (typeof level !== 'string' || !levels.includes(level))) {
    out.push(at(levelItem, `policy "${name}": enforcement_level ${JSON.stringify(level)} is not one of ${levels.join(', ')}${typeof level === 'string' ? suggestion(level, levels) : ''}`));
  }
  return out;
}

/** `param "NAME"` blocks that no policy declares, when every policy's code could be read. */
function unusedParamBlocks(outline: readonly OutlineItem[], facts: ConfigFacts): ConfigDiagnostic[] {
  const policies = outline.filter((item) => item.kind === 'block' && item.name === 'policy').map((item) => item.labels[0] ?? '');
  const declared = new Set<string>();
  for (const policy of policies) {
    const source = facts.source(policy);
    const names = source === null ? null : facts.declaredParams(source);
    if (names === null) return [];
    for (const param of names) declared.add(param);
  }
  return outline.filter((item) => item.kind === 'block' && item.name === 'param' && !declared.has(item.labels[0] ?? ''))
    .map((item) => at(item, `param "${item.labels[0] ?? ''}" is a parameter of no policy of the set (none has \`param ${item.labels[0] ?? ''}\`)${suggestion(item.labels[0] ?? '', [...declared])}`));
}

/**
 * The facts of a parsed document (hcl2json's shape: `{ policy: { NAME: [ {body} ] } }`); `read` gives the text of a
 * policy's local `source`, null for one that cannot be read (remote, missing: reported elsewhere).
 */
export function configFacts(document: Record<string, unknown>, read: (source: string) => string | null): ConfigFacts {
  const policies = document['policy'];
  const body = (policy: string): Record<string, unknown> => {
    const bodies = policies !== null && typeof policies === 'object' ? (policies as Record<string, unknown>)[policy] : undefined;
    const first = Array.isArray(bodies) ? bodies[0] : bodies;
    return first !== null && typeof first === 'object' ? (first as Record<string, unknown>) : {};
  };
  const cache = new Map<string, ReadonlySet<string> | null>();
  return {
    level: (policy) => body(policy)['enforcement_level'],
    source: (policy) => (typeof body(policy)['source'] === 'string' ? (body(policy)['source'] as string) : null),
    declaredParams: (source) => {
      if (!cache.has(source)) {
        const text = read(source);
        cache.set(source, text === null ? null : sentinelParams(text));
      }
      return cache.get(source) ?? null;
    },
  };
}

/** The parameters a Sentinel policy declares: `param NAME` (with or without a default) at the start of a line. */
export function sentinelParams(code: string): Set<string> {
  return new Set([...code.matchAll(/^[ \t]*param[ \t]+([A-Za-z_][A-Za-z0-9_]*)/gm)].map((match) => match[1]!));
}

function suggestion(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near === null || near === word ? '' : `; did you mean "${near}"?`;
}

function at(item: OutlineItem, message: string): ConfigDiagnostic {
  return { line: item.line, column: item.column, message };
}

/**
 * The diagnostics of a parse that failed, from the parser's message (`<file>:<line>,<column>-…: <summary>; <detail>`,
 * one after another): the first, which is the error, and how many more follow from it.
 */
export function syntaxDiagnostic(file: string, message: string): { first: string; more: number } {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = message.split(new RegExp(`(?=${escaped}:\\d+,\\d+)`)).map((part) => part.trim()).filter((part) => part !== '');
  return { first: parts[0] ?? message, more: Math.max(0, parts.length - 1) };
}

/** Diagnostics as lines of `<file>:<line>,<column>: <message>`, at most MAX_CONFIG_DIAGNOSTICS, then how many more. */
export function diagnosticLines(file: string, diagnostics: readonly ConfigDiagnostic[]): string[] {
  const shown = diagnostics.slice(0, MAX_CONFIG_DIAGNOSTICS).map((d) => `${file}:${d.line},${d.column}: ${d.message}`);
  const rest = diagnostics.length - shown.length;
  return rest > 0 ? [...shown, `and ${rest} more problem${rest === 1 ? '' : 's'} in ${file}`] : shown;
}

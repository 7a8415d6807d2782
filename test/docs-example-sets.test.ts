/**
 * Every policy set the docs show converges: each YAML block of README.md and docs/*.md that is a set's settings is
 * applied as a set declared in YAML and as a versioned set's policy-set.yaml, and a second plan then says
 * `No changes.` A documented setting that the service does not keep as sent (`overridable` on a native set that is not
 * agent-enabled) would be updated again on every pass.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import type { SeedOrganization } from '../src/emulator/index.js';
import { ORG } from './helpers/emulator.js';
import { REPO_ROOT as repoRoot } from './helpers/repo-root.js';
import { useWorld } from './helpers/world.js';

type Settings = Record<string, unknown>;

const SET_KEYS = Object.keys((JSON.parse(readFileSync(join(repoRoot, 'schemas/policy-set.schema.json'), 'utf8')) as { properties: Settings }).properties);
/** Keys only a set's settings have: a block with one of them and no key outside the set schema is a set example. */
const SET_ONLY = ['overridable', 'agent-enabled', 'policy-tool-version', 'global', 'workspaces', 'projects', 'workspace-exclusions', 'project-exclusions', 'parameters'];
const SCOPE_KEYS = ['workspaces', 'projects', 'workspace-exclusions', 'project-exclusions'] as const;

/** The documented set examples: [where, settings]. */
function documentedSets(): Array<[string, Settings]> {
  const files = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Array<[string, Settings]> = [];
  for (const file of files) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    for (const match of text.matchAll(/^```yaml\n([\s\S]*?)^```/gm)) {
      let value: unknown;
      try {
        value = parse(match[1]!);
      } catch {
        continue;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const keys = Object.keys(value);
      if (keys.every((key) => SET_KEYS.includes(key)) && keys.some((key) => SET_ONLY.includes(key))) {
        found.push([`${file}:${text.slice(0, match.index).split('\n').length}`, value as Settings]);
      }
    }
  }
  return found;
}

/** An organization holding what the examples' scopes name: a workspace for each name or id, one matching each wildcard. */
function organizationFor(sets: ReadonlyArray<Settings>): SeedOrganization {
  const workspaces = new Map<string, string>();
  const projects = new Map<string, string>();
  for (const set of sets) {
    for (const key of SCOPE_KEYS) {
      const into = key.startsWith('project') ? projects : workspaces;
      const prefix = key.startsWith('project') ? 'prj' : 'ws';
      for (const entry of (set[key] as string[] | undefined) ?? []) {
        const name = entry.replace(/^\*/, 'any').replace(/\*$/, 'any');
        if (new RegExp(`^${prefix}-[A-Za-z0-9]+$`).test(entry)) into.set(entry, `named-${entry.slice(prefix.length + 1).toLowerCase()}`);
        else into.set(`${prefix}-${String(into.size + 1).padStart(12, '0')}`, name);
      }
    }
  }
  return {
    name: ORG,
    workspaces: [...workspaces].map(([id, name]) => ({ id, name })),
    projects: [...projects].map(([id, name]) => ({ id, name })),
  };
}

const examples = documentedSets();
const secrets = mkdtempSync(join(tmpdir(), 'pps-doc-secrets-'));
after(() => rmSync(secrets, { recursive: true, force: true }));

/**
 * The example as a repo declares it: a sensitive parameter's file in a folder outside the repo, made here; and the
 * operator's allowance of what they read (--parameter-env, --parameter-files).
 */
function declared(settings: Settings): { settings: Settings; env: Record<string, string>; allow: string[] } {
  const env: Record<string, string> = {};
  const parameters: Settings = {};
  for (const [key, value] of Object.entries((settings.parameters as Settings | undefined) ?? {})) {
    const ref = value as { env?: string; file?: string } | string;
    if (typeof ref === 'object' && ref !== null && ref.env !== undefined) env[ref.env] = `value-of-${key}`;
    if (typeof ref === 'object' && ref !== null && ref.file !== undefined) {
      const file = join(secrets, key);
      writeFileSync(file, `value-of-${key}\n`);
      parameters[key] = { file: key };
    } else parameters[key] = value;
  }
  const allow = [...Object.keys(env).flatMap((name) => ['--parameter-env', name]), '--parameter-files', secrets];
  return { settings: settings.parameters === undefined ? settings : { ...settings, parameters }, env, allow };
}

describe('the policy sets the docs show converge: applied once, a second plan says No changes.', () => {
  const fixture = useWorld({ organizations: [organizationFor(examples.map(([, settings]) => settings))] });

  it('the docs show at least the settings example of docs/declared-repo.md', () => {
    assert.ok(examples.some(([where]) => where.startsWith('docs/declared-repo.md')), JSON.stringify(examples.map(([where]) => where)));
  });

  it('--validate refuses overridable and policy-tool-version on a native set not declared agent-enabled: true, naming file and line; opa keeps overridable', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/never-converges.yaml': 'description: d\noverridable: true\n',
      'policy-sets/tool.yaml': 'agent-enabled: false\npolicy-tool-version: latest\n',
      'policy-sets/rego.yaml': 'kind: opa\noverridable: true\n',
      'policy-sets/folder/sentinel.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n',
      'policy-sets/folder/p.sentinel': 'main = rule { true }\n',
      'policy-sets/folder/policy-set.yaml': 'global: true\noverridable: false\n',
    });
    await world.clearRequests();
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy-sets\/never-converges\.yaml:2: overridable needs agent-enabled: true on a native \(Sentinel\) set/);
    assert.match(run.stdout, /policy-sets\/tool\.yaml:2: policy-tool-version needs agent-enabled: true/);
    assert.match(run.stdout, /policy-sets\/folder\/policy-set\.yaml:2: overridable needs agent-enabled: true/);
    assert.doesNotMatch(run.stdout, /rego\.yaml/, 'an opa set keeps overridable whatever agent-enabled says');
    assert.deepEqual(await world.requests(), []);
  });

  for (const [where, example] of examples) {
    for (const shape of ['yaml', 'folder'] as const) {
      it(`${where}, as ${shape === 'yaml' ? 'a set declared in YAML' : 'a versioned set\'s policy-set.yaml'}`, async () => {
        const { world } = fixture;
        const { settings, env, allow } = declared(example);
        const name = `${typeof settings.name === 'string' ? settings.name : 'example'}-${shape}`;
        // kind and the members' enforcement-level are for a set declared in YAML only; a rollout given without one is a
        // versioned set's (its levels are in its config file), and the members' rollout needs the members' level.
        const { kind, 'enforcement-level': level, rollout, ...folderSettings }: Settings = { ...settings, name };
        const sentinel = kind !== 'opa';
        const { rollout: _versioned, ...yamlSettings }: Settings = { ...settings, name };
        const tree = shape === 'yaml'
          ? { [`policy-sets/${name}.yaml`]: stringify(level === undefined ? yamlSettings : { ...settings, name }) }
          : {
              [`policy-sets/${name}/policy-set.yaml`]: stringify(level === undefined && rollout !== undefined ? { ...folderSettings, rollout } : folderSettings),
              [`policy-sets/${name}/${sentinel ? 'sentinel.hcl' : 'policies.hcl'}`]: sentinel ? 'policy "p" {\n  source = "./p.sentinel"\n}\n' : 'policy "p" {\n  query = "data.p.deny"\n}\n',
              [`policy-sets/${name}/${sentinel ? 'p.sentinel' : 'p.rego'}`]: sentinel ? 'main = rule { true }\n' : 'package p\n',
            };
        const dir = await fixture.repo(tree);
        const applied = await world.cli('--reconcile', dir, ['--source', `docs-${shape}`, ...allow], 'warn', env);
        assert.equal(applied.code, 0, applied.stdout + applied.stderr);
        const again = await world.cli('--dry-run', dir, ['--source', `docs-${shape}`, '--detailed-exitcode', ...allow], 'warn', env);
        assert.equal(again.code, 0, again.stdout + again.stderr);
        assert.match(again.stdout, /No changes\./);
      });
    }
  }
});

/** The manual stays a manual: a short README that points at the pages, and pages that name every flag, variable and config key. */
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPTIONS, USAGE } from '../src/cli/args.js';
import { PASS_RESULTS } from '../src/operations/pass-record.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const read = (file: string) => readFile(join(REPO_ROOT, file), 'utf8');

/** Every key of the config schema, at any depth. */
function schemaKeys(schema: unknown, keys = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) schemaKeys(item, keys);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value !== null && typeof value === 'object') for (const name of Object.keys(value)) keys.add(name);
      schemaKeys(value, keys);
    }
  }
  return keys;
}

describe('the documentation', () => {
  it('README: at most about 250 lines, install before the quick start, a link to each page that exists', async () => {
    const readme = await read('README.md');
    assert.ok(readme.split('\n').length <= 250, `${readme.split('\n').length} lines`);
    assert.ok(readme.indexOf('## Install') < readme.indexOf('## Quick start'));
    for (const page of ['declared-repo', 'command-line', 'ci', 'daemon', 'emulator', 'how-it-works', 'development']) {
      assert.ok(readme.includes(`(docs/${page}.md)`), `README links docs/${page}.md`);
      await access(join(REPO_ROOT, 'docs', `${page}.md`));
    }
  });

  it('the command-line page names every flag and every environment variable of --help, and the exit codes', async () => {
    const page = await read('docs/command-line.md');
    for (const flag of Object.keys(OPTIONS)) assert.match(page, new RegExp(`--${flag}\\b`), `--${flag} is missing from docs/command-line.md`);
    const variables = [...USAGE.slice(USAGE.indexOf('Environment:')).matchAll(/^ {2}([A-Z][A-Z_]+)\b/gm)].map((m) => m[1]!);
    assert.ok(variables.length >= 10, variables.join(', '));
    for (const name of variables) assert.ok(page.includes(name), `${name} is missing from docs/command-line.md`);
    for (const code of ['130', '143', '`2`']) assert.ok(page.includes(code), `exit code ${code}`);
  });

  it('a folder the pages call a kustomize base is one (kubectl kustomize builds it)', async () => {
    let seen = 0;
    for (const [file, base] of [['README.md', ''], ['docs/daemon.md', 'docs']] as const) {
      const page = await read(file);
      for (const match of page.matchAll(/kustomize\s+base[^.:]{0,40}?\[`[^`]+`\]\(([^)]+)\)/g)) {
        seen += 1;
        await access(join(REPO_ROOT, base, match[1]!, 'kustomization.yaml')).catch(() => assert.fail(`${file}: "${match[0]}" is no kustomization`));
      }
    }
    assert.ok(seen >= 2, `${seen} kustomize bases named`);
  });

  it('the daemon page lists every result of policy_pool_sync_passes_total', async () => {
    const row = (await read('docs/daemon.md')).split('\n').find((line) => line.startsWith('| `policy_pool_sync_passes_total`'));
    assert.ok(row);
    for (const result of PASS_RESULTS) assert.ok(row.includes(`\`${result}\``), `${result} is missing from the passes_total row`);
  });

  it('the daemon page names every config key', async () => {
    const page = await read('docs/daemon.md');
    const keys = schemaKeys(JSON.parse(await read('schemas/config.schema.json')));
    assert.ok(keys.size >= 20, [...keys].join(', '));
    for (const key of keys) assert.match(page, new RegExp(`\\b${key}:`), `config key ${key} is missing from docs/daemon.md`);
  });
});

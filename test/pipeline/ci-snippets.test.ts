/**
 * The CI recipes users copy: the CI page's shell snippet (docs/ci.md), the example GitHub workflow and the example GitLab pipeline,
 * each run as CI runs it (bash with -e and pipefail) against the emulator.
 */
import assert from 'node:assert/strict';
import { chmod, cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { bash, parseOutputs, readAction, runAction, type ActionFile } from '../helpers/action-runner.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { useTempTrees, type Tree } from '../helpers/temp-tree.js';
import { World } from '../helpers/world.js';

const ORGANIZATION = 'acme';
const POLICY = { 'policies/tags.native': 'main = rule { true }\n' };

let world: World;
let bin: string;
const repo = useTempTrees('pps-ci-');

before(async () => {
  world = await World.start({ organizations: [{ name: ORGANIZATION }] });
  // `policy-pool-sync` on the PATH, as an install puts it there.
  bin = await repo();
  await writeFile(join(bin, 'policy-pool-sync'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'bundle/policy-pool-sync.mjs')}" "$@"\n`);
  await chmod(join(bin, 'policy-pool-sync'), 0o755);
});
after(() => world.close());

/** Runs shell lines under `bash -eo pipefail` in `dir`, with the API in the environment as a CI secret would put it. */
async function runShell(lines: string, dir: string, env: Record<string, string> = {}) {
  const script = join(dir, '.ci-step.sh');
  await writeFile(script, lines);
  const summary = join(dir, '.summary.md');
  const output = join(dir, '.output');
  await writeFile(summary, '');
  await writeFile(output, '');
  const run = await bash(script, dir, {
    RUNNER_TEMP: await repo(),
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    NO_COLOR: '1',
    API_TOKEN: world.token,
    API_BASE_URL: world.url,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
    ...env,
  });
  return { ...run, summary: await readFile(summary, 'utf8'), outputs: parseOutputs(await readFile(output, 'utf8')) };
}

async function livePolicies(): Promise<string[]> {
  return (await world.policies(ORGANIZATION)).map((p) => p.name).sort();
}

describe("the CI page's shell snippet", () => {
  let snippet: string;
  before(async () => {
    const section = await readFile(join(REPO_ROOT, 'docs/ci.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(section);
    assert.ok(block, 'the CI page opens with a sh block');
    snippet = block[1]!;
  });

  it('reads the API URL from API_BASE_URL, the documented variable', () => {
    assert.doesNotMatch(snippet, /\$API_URL\b/);
  });

  it('under bash -e: a plan with changes passes and says changes=true, then the apply, then no changes', async () => {
    const dir = await repo({ 'policies/from-readme.native': 'main = rule { true }\n' });
    const first = await runShell(snippet, dir);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.outputs['changes'], 'true');
    assert.match(first.summary, /from-readme/);
    assert.ok((await livePolicies()).includes('from-readme'), 'the main-branch line applied the plan');
    const second = await runShell(snippet, dir);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.outputs['changes'], 'false');
  });

  it('under bash -e: an invalid repo fails the step with exit 1, and its errors reach the summary', async () => {
    const dir = await repo({ 'policies/bad.native': 'main = rule { true }\n', 'policies/bad.yaml': 'levle: advisory\n' });
    const run = await runShell(snippet, dir);
    assert.equal(run.code, 1);
    assert.match(run.summary, /bad\.yaml:1: unknown key/);
  });
});

describe('examples/ci/github-actions.yml', () => {
  let action: ActionFile;
  let workflow: {
    on: Record<string, { paths?: string[]; 'paths-ignore'?: string[] } | null>;
    env: Record<string, string>;
    jobs: Record<string, { steps: Array<{ id?: string; uses?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown> }> }>;
  };
  before(async () => {
    action = await readAction();
    workflow = parse(await readFile(join(REPO_ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as typeof workflow;
  });

  const actionSteps = () =>
    Object.entries(workflow.jobs).flatMap(([job, { steps }]) => steps.filter((s) => /\/policy-pool-sync@/.test(s.uses ?? '')).map((step) => ({ job, step })));

  it('uses only inputs and outputs the action has, and gives every required input', () => {
    assert.deepEqual(actionSteps().map((s) => s.job), ['plan', 'apply']);
    for (const { job, step } of actionSteps()) {
      for (const key of Object.keys(step.with ?? {})) assert.ok(action.inputs[key], `${job}: unknown input ${key}`);
      for (const [name, input] of Object.entries(action.inputs)) {
        if (input.required === true) assert.ok(step.with?.[name] !== undefined, `${job}: required input ${name} missing`);
      }
    }
    for (const { steps } of Object.values(workflow.jobs)) {
      for (const step of steps) {
        for (const [, id, output] of (step.if ?? '').matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
          assert.ok(steps.some((s) => s.id === id && /\/policy-pool-sync@/.test(s.uses ?? '')), `no step ${id}`);
          assert.ok(action.outputs[output!], `the action has no output ${output}`);
        }
      }
    }
  });

  it('runs for a change anywhere in the repo: a policy set\'s folder may sit outside policies/', () => {
    const changed = ['policies/a.native', 'agent-pools/b.yaml', 'aws/fsbp/sentinel.hcl', 'aws/fsbp/policies/s3.sentinel', 'compliance/policy-set.yaml'];
    for (const [event, filter] of Object.entries(workflow.on)) {
      for (const file of changed) {
        const included = filter?.paths === undefined || filter.paths.some((glob) => globPattern(glob).test(file));
        const excluded = (filter?.['paths-ignore'] ?? []).some((glob) => globPattern(glob).test(file));
        assert.ok(included && !excluded, `${event} does not run for a change to ${file}`);
      }
    }
  });

  it("each job's action step, with the example's inputs and env, plans and then applies a set folder and its parameter", async () => {
    const dir = await repo({ 'policies/from-workflow.native': 'main = rule { true }\n' });
    await cp(join(REPO_ROOT, 'test/fixtures/corpus/fsbp-aws-set'), join(dir, 'aws/fsbp'), { recursive: true });
    await writeFile(join(dir, 'aws/fsbp/policy-set.yaml'), 'parameters:\n  slack_token: { env: POLICY_PARAM_SLACK_TOKEN }\n');
    const results = [];
    for (const { step } of actionSteps()) {
      const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([key, value]) => [key, String(value)]));
      // The secret and the comment's pull request are what the runner would supply; the URL is the emulator's.
      inputs['token'] = world.token;
      inputs['comment'] = 'false';
      assert.equal(workflow.env['API_BASE_URL'], 'https://policies.example.com/api/v2');
      // The step's env: holds secrets the runner fills in; here each gets a value of its own.
      assert.deepEqual(Object.values(step.env ?? {}), ['${{ secrets.POLICY_PARAM_SLACK_TOKEN }}']);
      const env = Object.fromEntries(Object.keys(step.env ?? {}).map((name) => [name, `${name}-from-the-secret-0123`]));
      results.push(await runAction(action, { cwd: dir, inputs, env: { API_BASE_URL: world.url, ...env } }));
    }
    const [plan, apply] = results;
    assert.ok(plan?.ok, JSON.stringify(plan?.steps, null, 2));
    assert.equal(plan.outputs['changes'], 'true');
    assert.match(plan.summary, /policy-set.*fsbp/);
    assert.ok(apply?.ok, JSON.stringify(apply?.steps, null, 2));
    assert.ok((await livePolicies()).includes('from-workflow'));
    const set = (await world.organization(ORGANIZATION))['policy-sets'].find((s) => s.name === 'fsbp');
    assert.equal(set?.versions.at(-1)?.status, 'ready');
    assert.deepEqual(set?.parameters.map((p) => [p.key, p.value]), [['slack_token', 'POLICY_PARAM_SLACK_TOKEN-from-the-secret-0123']]);
  });
});

/** A workflow's paths glob as a pattern: `**` any folders, `*` within one. */
function globPattern(glob: string): RegExp {
  const body = glob.split('**').map((part) => part.split('*').map((text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*');
  return new RegExp(`^${body}$`);
}

describe('examples/ci/gitlab-ci.yml', () => {
  let pipeline: Record<string, { script?: string[]; before_script?: string[]; extends?: string }>;
  before(async () => {
    pipeline = parse(await readFile(join(REPO_ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as typeof pipeline;
  });

  it('installs the packed git checkout with npm before each job', () => {
    for (const job of ['plan', 'apply']) {
      const base = pipeline[pipeline[job]?.extends ?? job];
      assert.ok(base?.before_script?.some((line) => /^npm install -g "\$\(npm pack --silent git\+https:\/\//.test(line)), job);
    }
  });

  it('plan keeps exit code 2 as changes under set -e, and apply applies', async () => {
    const dir = await repo(POLICY);
    const plan = await runShell(pipeline['plan']!.script!.join('\n'), dir);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /tags/);
    assert.equal(await readFile(join(dir, 'plan.env'), 'utf8'), 'POLICY_CHANGES=true\n');
    const apply = await runShell(pipeline['apply']!.script!.join('\n'), dir);
    assert.equal(apply.code, 0, apply.stderr);
    assert.ok((await livePolicies()).includes('tags'));
    const again = await runShell(pipeline['plan']!.script!.join('\n'), dir);
    assert.equal(again.code, 0);
    assert.equal(await readFile(join(dir, 'plan.env'), 'utf8'), 'POLICY_CHANGES=false\n');
  });

  it('plan fails the job on an invalid repo', async () => {
    const dir = await repo({ 'policies/bad.native': 'main = rule { true }\n', 'policies/bad.yaml': 'levle: advisory\n' });
    const plan = await runShell(pipeline['plan']!.script!.join('\n'), dir);
    assert.equal(plan.code, 1);
  });
});

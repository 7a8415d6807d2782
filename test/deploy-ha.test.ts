/**
 * deploy/ha: the overlay on deploy/base for two replicas under leader election, built as `kubectl apply -k` would
 * (test/helpers/kustomize.ts) and checked like the base: every object valid against Kubernetes' published schemas,
 * the pod under Pod Security "restricted". Its pieces fit each other and the daemon: the config it generates is the
 * base's with a leader election on the kubernetes store, the Role allows exactly what the store sends (leases get,
 * create, update) to the pods' service account, and the pods get the token the store reads.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseConfig } from '../src/config/index.js';
import { buildKustomization, findManifest as find, podSpec, restrictedProblems, schemaProblems, type Manifest, type PodSpec } from './helpers/kustomize.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const NAME = 'policy-pool-sync';
const LABELS = { 'app.kubernetes.io/name': NAME };

const field = <T>(manifest: Manifest, key: string) => manifest[key] as T;

describe('deploy/ha', () => {
  let manifests: Manifest[];
  let deployment: Manifest;
  let pod: PodSpec;
  before(async () => {
    manifests = await buildKustomization(join(REPO_ROOT, 'deploy/ha'));
    deployment = find(manifests, 'Deployment', NAME);
    pod = podSpec(deployment)!;
  });

  it("holds the base's objects with a Role, a RoleBinding and a PodDisruptionBudget, valid against Kubernetes' schemas", () => {
    assert.deepEqual(manifests.map((m) => `${m.kind} ${m.metadata.name}`).sort(), [
      `ConfigMap ${NAME}-config`,
      `Deployment ${NAME}`,
      `PodDisruptionBudget ${NAME}`,
      `Role ${NAME}-leader-election`,
      `RoleBinding ${NAME}-leader-election`,
      `Service ${NAME}`,
      `ServiceAccount ${NAME}`,
    ]);
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    for (const manifest of manifests) assert.deepEqual(manifest.metadata.labels, LABELS, `${manifest.kind} ${manifest.metadata.name}'s labels`);
  });

  it('runs under Pod Security "restricted", the patches merged into the base\'s pod rather than replacing it', () => {
    assert.deepEqual(restrictedProblems(pod), []);
    const container = pod.containers.find((c) => c.name === NAME);
    assert.equal(pod.containers.length, 1);
    assert.equal(container?.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container?.image, 'registry.example.com/policy-pool-sync:0.1.0');
  });

  it('runs two replicas rolled one at a time, spread over nodes, with the service-account token the kubernetes store reads', () => {
    const spec = field<{ replicas: number; strategy: unknown; template: { metadata: { labels: Record<string, string> } } }>(deployment, 'spec');
    assert.equal(spec.replicas, 2);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    assert.equal(pod['automountServiceAccountToken'], true);
    assert.equal(field(find(manifests, 'ServiceAccount', NAME), 'automountServiceAccountToken'), true);
    const affinity = pod['affinity'] as { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: Array<{ podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } } }> } };
    const term = affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]?.podAffinityTerm;
    assert.equal(term?.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(term?.labelSelector.matchLabels, spec.template.metadata.labels);
  });

  it('keeps one replica through a drain: the PodDisruptionBudget selects the pods and leaves fewer than all', () => {
    const spec = field<{ minAvailable: number; selector: { matchLabels: Record<string, string> } }>(find(manifests, 'PodDisruptionBudget', NAME), 'spec');
    const template = field<{ replicas: number; template: { metadata: { labels: Record<string, string> } } }>(deployment, 'spec');
    assert.deepEqual(spec.selector.matchLabels, template.template.metadata.labels);
    assert.equal(spec.minAvailable, 1);
    assert.ok(spec.minAvailable < template.replicas, 'a drain could never evict a pod');
  });

  it("gives the pods' service account what the kubernetes store sends, and nothing else", () => {
    const role = find(manifests, 'Role', `${NAME}-leader-election`);
    assert.deepEqual(field(role, 'rules'), [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }]);
    const binding = find(manifests, 'RoleBinding', `${NAME}-leader-election`);
    assert.deepEqual(field(binding, 'roleRef'), { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    assert.deepEqual(field(binding, 'subjects'), [{ kind: 'ServiceAccount', name: pod['serviceAccountName'] }]);
  });

  it("generates the base's config with a leader election on a Lease, in place of the base's", async () => {
    const text = field<Record<string, string>>(find(manifests, 'ConfigMap', `${NAME}-config`), 'data')['default.yaml'] ?? '';
    const config = await parseConfig(text, 'deploy/ha/config.yaml', {}, { cwd: '/app' });
    assert.deepEqual(config.leaderElection, { store: 'kubernetes', endpoints: [], leaseName: NAME, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    const base = find(await buildKustomization(join(REPO_ROOT, 'deploy/base')), 'ConfigMap', `${NAME}-config`);
    const baseConfig = await parseConfig(field<Record<string, string>>(base, 'data')['default.yaml'] ?? '', 'deploy/base/config.yaml', {}, { cwd: '/app' });
    const { leaderElection, ...rest } = config;
    assert.ok(leaderElection !== undefined && baseConfig.leaderElection === undefined);
    assert.deepEqual(rest, baseConfig, 'deploy/ha/config.yaml is deploy/base/config.yaml with leader-election added');
  });
});

describe("the kustomize reader's patches and generators", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kustomize-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const BASE = {
    'deployment.yaml': [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: app }',
      'spec:', '  replicas: 1', '  template:', '    spec:', '      containers:',
      '        - { name: app, image: app, ports: [{ containerPort: 80 }], securityContext: { runAsNonRoot: true } }',
      '        - { name: side, image: side }',
      '      tolerations: [{ key: a }]',
    ].join('\n'),
    'data.txt': 'new',
  };
  async function build(kustomization: string, files: Record<string, string> = {}): Promise<Manifest[]> {
    const folder = await mkdtemp(join(dir, 'k-'));
    for (const [name, text] of Object.entries({ ...BASE, ...files, 'kustomization.yaml': kustomization })) await writeFile(join(folder, name), text);
    return buildKustomization(folder);
  }

  it('merges a strategic merge patch: fields merge, lists of containers and ports merge by their key, other lists are replaced, null deletes', async () => {
    const patch = [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: app }',
      'spec:', '  replicas: null', '  template:', '    spec:', '      containers:',
      '        - { name: app, image: app:2, ports: [{ containerPort: 80, name: http }, { containerPort: 81 }] }',
      '      tolerations: [{ key: b }]',
    ].join('\n');
    const inline = `resources: [deployment.yaml]\npatches:\n  - patch: |\n${patch.replace(/^/gm, '      ')}\n`;
    for (const [kustomization, files] of [['resources: [deployment.yaml]\npatches: [{ path: patch.yaml }]\n', { 'patch.yaml': patch }], [inline, {}]] as const) {
      const [deployment] = await build(kustomization, files);
      assert.deepEqual(deployment!['spec'], {
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'app:2', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 81 }], securityContext: { runAsNonRoot: true } },
              { name: 'side', image: 'side' },
            ],
            tolerations: [{ key: 'b' }],
          },
        },
      });
    }
  });

  it('replaces or merges a generated ConfigMap of the resources as its behavior says', async () => {
    const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\ndata: { old.txt: old }\n';
    const generated = (behavior: string) => `resources: [configmap.yaml]\nconfigMapGenerator: [{ name: settings, behavior: ${behavior}, files: [data.txt] }]\n`;
    assert.deepEqual((await build(generated('replace'), { 'configmap.yaml': configMap }))[0]!['data'], { 'data.txt': 'new' });
    assert.deepEqual((await build(generated('merge'), { 'configmap.yaml': configMap }))[0]!['data'], { 'old.txt': 'old', 'data.txt': 'new' });
  });

  it('refuses what it does not know or cannot do, rather than leaving it out', async () => {
    const cases: Array<[string, string, Record<string, string>, RegExp]> = [
      ['a JSON 6902 patch', 'resources: [deployment.yaml]\npatches: [{ path: p.yaml, target: { kind: Deployment, name: app } }]\n', { 'p.yaml': '- { op: replace, path: /spec/replicas, value: 2 }' }, /does not know in patches target/],
      ['a JSON 6902 patch from a file', 'resources: [deployment.yaml]\npatches: [{ path: p.yaml }]\n', { 'p.yaml': '- { op: replace, path: /spec/replicas, value: 2 }' }, /JSON 6902/],
      ['a patch of no object', 'resources: [deployment.yaml]\npatches: [{ path: p.yaml }]\n', { 'p.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: other }\nspec: { replicas: 2 }' }, /Deployment other finds no such object/],
      ['a directive', 'resources: [deployment.yaml]\npatches: [{ path: p.yaml }]\n', { 'p.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: app }\nspec: { $patch: replace }' }, /directive \$patch/],
      ['replace of nothing', 'configMapGenerator: [{ name: settings, behavior: replace, files: [data.txt] }]\n', {}, /behavior replace, but no ConfigMap/],
      ['create over one', 'configMapGenerator: [{ name: s, files: [data.txt] }, { name: s, files: [data.txt] }]\n', {}, /already hold/],
      ['literals', 'configMapGenerator: [{ name: s, literals: [a=b] }]\n', {}, /does not know in configMapGenerator s literals/],
    ];
    for (const [what, kustomization, files, message] of cases) await assert.rejects(build(kustomization, files), message, what);
  });
});

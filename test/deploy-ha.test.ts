/**
 * deploy/ha: the overlay on deploy/base for two replicas under leader election. Its pieces fit each other and the
 * daemon: the config it generates is valid and names the kubernetes store, the Role allows exactly what the store
 * sends (leases get, create, update), and the pods get the token the store reads.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from '../src/config/index.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const read = async (file: string) => parse(await readFile(join(REPO_ROOT, 'deploy/ha', file), 'utf8')) as Record<string, any>;

test('deploy/ha: an overlay on ../base with its Role, RoleBinding, PodDisruptionBudget and the patches', async () => {
  const kustomization = await read('kustomization.yaml');
  assert.deepEqual(kustomization.resources, ['../base', 'role.yaml', 'rolebinding.yaml', 'poddisruptionbudget.yaml']);
  assert.deepEqual(kustomization.configMapGenerator, [{ name: 'policy-pool-sync-config', behavior: 'replace', files: ['default.yaml=config.yaml'], options: { labels: { 'app.kubernetes.io/name': 'policy-pool-sync' } } }]);
  const deployment = await read('deployment-patch.yaml');
  assert.equal(deployment.spec.replicas, 2);
  assert.equal(deployment.spec.template.spec.automountServiceAccountToken, true);
  assert.equal((await read('serviceaccount-patch.yaml')).automountServiceAccountToken, true);
  const pdb = await read('poddisruptionbudget.yaml');
  assert.equal(pdb.kind, 'PodDisruptionBudget');
  assert.equal(pdb.spec.minAvailable, 1);
  assert.deepEqual(pdb.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'policy-pool-sync' });
});

test('deploy/ha: the Role allows what the kubernetes store sends, and the binding gives it to the pods\' service account', async () => {
  const role = await read('role.yaml');
  assert.deepEqual(role.rules, [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }]);
  const binding = await read('rolebinding.yaml');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'policy-pool-sync' }]);
});

test('deploy/ha: its config is valid and elects a leader on a Lease', async () => {
  const text = await readFile(join(REPO_ROOT, 'deploy/ha/config.yaml'), 'utf8');
  const config = await parseConfig(text, 'deploy/ha/config.yaml', {}, { cwd: '/app' });
  assert.deepEqual(config.leaderElection, { store: 'kubernetes', endpoints: [], leaseName: 'policy-pool-sync', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
});

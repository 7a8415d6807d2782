/** The apply order is a table of waves run by one loop: each wave named in logs and progress, one after the other. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { applyPlan } from '../src/apply/apply.js';
import { WAVES } from '../src/apply/waves.js';
import { readDeclared } from '../src/declared/index.js';
import { readLive } from '../src/live/read-live.js';
import { silentLogger } from '../src/logger.js';
import { planChanges } from '../src/plan/plan.js';
import { ProgressReporter, TerminalLine } from '../src/progress.js';
import { captureLogs } from './helpers/logs.js';
import { ORG, policyBody } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const CODE = (n: number) => `main = rule { ${n} >= 0 }\n`;

/** A policy made as another run would, its code uploaded unless `code` is null (an interrupted create). */
async function seedPolicy(world: World, name: string, level: string, code: string | null): Promise<void> {
  const made = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody(name, { kind: 'native', 'enforcement-level': level }) });
  assert.equal(made.status, 200, made.text);
  if (code === null) return;
  const id = (made.json as { data: { id: string } }).data.id;
  const uploaded = await world.call('PUT', `/policies/${id}/upload`, { raw: code, contentType: 'application/octet-stream' });
  assert.ok(uploaded.status < 300, uploaded.text);
}

/** Which wave a write belongs to, by what it does. */
function waveOf(method: string, path: string, halfMadeId: string): string {
  if (path.startsWith(`/policies/${halfMadeId}/`)) return 'finish-uploads';
  if (method === 'POST' || (method === 'PUT' && path.endsWith('/upload'))) return 'create';
  if (method === 'PATCH') return 'update';
  if (method === 'DELETE') return 'delete';
  return `unknown ${method} ${path}`;
}

describe('apply: the waves', () => {
  const fixture = useWorld();

  it('the table names the waves in the order they run', () => {
    assert.deepEqual(WAVES.map((w) => w.name), ['finish-uploads', 'create-sets', 'create', 'tokens', 'update', 'delete', 'delete-sets']);
    // The rule of dependent-deletes.ts is the delete wave's own.
    assert.equal(typeof WAVES.find((w) => w.name === 'delete')?.skip, 'function');
  });

  it('runs each wave after the one before, names it in the logs and to the progress', async () => {
    const { world } = fixture;
    await seedPolicy(world, 'wave-half', 'advisory', null);
    await seedPolicy(world, 'wave-changed', 'advisory', CODE(1));
    await seedPolicy(world, 'wave-gone', 'advisory', CODE(2));
    const dir = await fixture.repo({
      'policies/wave-half.native': CODE(0),
      'policies/wave-changed.native': CODE(1),
      'policies/wave-changed.yaml': 'enforcement-level: hard-mandatory\n',
      'policies/wave-new-a.native': CODE(3),
      'policies/wave-new-b.native': CODE(4),
    });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    const logs = captureLogs();
    const waves: string[] = [];
    try {
      const declared = await readDeclared(dir);
      const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
      const plan = planChanges(declared, live, { source: 'default', ownership: 'organization', prune: true, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() });
      const planned = plan.changes.map((c) => `${c.action} ${c.name}`).sort();
      assert.deepEqual(planned, ['create wave-new-a', 'create wave-new-b', 'delete wave-gone', 'update wave-changed', 'update wave-half'], plan.errors.join('\n'));
      const halfMadeId = plan.changes.find((c) => c.name === 'wave-half')!.id!;
      await world.clearRequests();
      const results = await applyPlan(plan, {
        api, organization: ORG, source: 'default', ownership: 'organization', logger: logs.logger, concurrency: 4,
        onWave: (name, changes) => waves.push(`${name} ${changes}`),
      });
      assert.deepEqual(results.map((r) => r.outcome), results.map(() => 'applied'), JSON.stringify(results.map((r) => r.message)));
      assert.deepEqual(waves, ['finish-uploads 1', 'create 2', 'update 1', 'delete 1']);

      const order = (await world.writes()).map((w) => waveOf(w.method, w.path, halfMadeId));
      const runs = order.filter((wave, i) => i === 0 || order[i - 1] !== wave);
      assert.deepEqual(runs, ['finish-uploads', 'create', 'update', 'delete'], `writes out of wave order: ${order.join(', ')}`);
    } finally {
      await api.close();
    }
    const records = logs.lines.map((l) => JSON.parse(l) as { msg: string; wave?: string; resourceName?: string });
    assert.deepEqual(records.filter((r) => r.msg.startsWith('apply wave')).map((r) => r.msg), [
      'apply wave "finish-uploads"', 'apply wave "create"', 'apply wave "update"', 'apply wave "delete"',
    ]);
    const applied = records.filter((r) => r.msg === 'change applied');
    assert.equal(applied.find((r) => r.resourceName === 'wave-gone')?.wave, 'delete');
    assert.equal(applied.find((r) => r.resourceName === 'wave-half')?.wave, 'finish-uploads');
  });

  it('progress names the wave under way: on a terminal in its line, in a log as a field', () => {
    let shown = '';
    const terminal = new TerminalLine({ write: (text: string) => (shown += text) });
    const onTerminal = new ProgressReporter({ logger: silentLogger(), terminal });
    onTerminal.update({ source: 'main', phase: 'applying', done: 1, total: 3, failed: 0, wave: 'create' });
    onTerminal.end();
    assert.match(shown, /\[main\] applying 1\/3, about \d+ s left \(create\)/);
    const logs = captureLogs();
    const logged = new ProgressReporter({ logger: logs.logger });
    logged.update({ source: 'main', phase: 'applying', done: 0, total: 3, failed: 0, wave: 'delete' });
    logged.end();
    assert.equal((JSON.parse(logs.lines[0]!) as { wave?: string }).wave, 'delete');
  });
});

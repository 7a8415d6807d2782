import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openCodeCacheStore } from '../src/live/code-cache-file.js';
import { openEvidenceCacheStore } from '../src/live/evidence-cache-file.js';
import { openPassHistory } from '../src/operations/history-file.js';
import type { PassRecord } from '../src/operations/pass-record.js';
import { organizationFileName, stateDirLayout } from '../src/state-dir.js';
import { stateSeal, withoutSeal } from '../src/state-seal.js';
import { captureLogs } from './helpers/logs.js';
import { countStateWrites, type StateWriteCounter } from './helpers/state-writes.js';

const DIGEST = (n: number) => n.toString(16).padStart(64, '0');
const ORGS = ['org-a', 'org-b', 'org-c'];
const SEAL = stateSeal('state-writes-token', 'http://127.0.0.1/api/v2');

describe('state files are written once per change', () => {
  let stateDir: string;
  let counter: StateWriteCounter;
  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'pps-state-writes-'));
    counter = countStateWrites(stateDir);
  });
  after(async () => {
    counter.stop();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('a cache file: many passes ending together are one write of their organization\'s file, and none of another\'s', async () => {
    const logs = captureLogs();
    const store = openCodeCacheStore({ stateDir, logger: logs.logger, seal: SEAL, persist: true });
    const evidence = openEvidenceCacheStore({ stateDir, logger: logs.logger, seal: SEAL, persist: true });
    const file = (org: string) => path.join(stateDirLayout(stateDir).codeCache, organizationFileName(org));
    const caches = await Promise.all(ORGS.map((org) => store.forOrganization(org)));
    await Promise.all(ORGS.map((org) => evidence.forOrganization(org)));
    caches.forEach((cache, i) => cache.set(`pol-${i}`, 't1', DIGEST(i)));
    // Twenty passes of each organization's sources end at once, each saving its own organization.
    await Promise.all(ORGS.flatMap((org) => Array.from({ length: 20 }, () => store.saveOrganization(org))));
    assert.deepEqual(ORGS.map((org) => counter.writes(file(org))), [1, 1, 1]);

    // Two changes of org-a and eleven saves of it are one more write, that holds both; an unchanged org-b is not written.
    caches[0]!.set('pol-x', 't1', DIGEST(9));
    const first = store.saveOrganization('org-a');
    caches[0]!.set('pol-y', 't1', DIGEST(10));
    await Promise.all([first, ...Array.from({ length: 10 }, () => store.saveOrganization('org-a')), store.saveOrganization('org-b')]);
    assert.deepEqual(ORGS.map((org) => counter.writes(file(org))), [2, 1, 1]);
    assert.match(await readFile(file('org-a'), 'utf8'), /pol-y/, 'the last write holds the last change');
    // The evidence caches did not change: no file of theirs.
    await Promise.all(ORGS.map((org) => evidence.saveOrganization(org)));
    assert.deepEqual([...counter.all().keys()].filter((f) => f.includes('evidence')), []);
    assert.equal(counter.mostAtOnce(), 1, 'never two writes of one file at once');
    assert.deepEqual(logs.lines, []);
  });

  it('the pass history: passes added while a write is under way are one write after it, of the newest passes', async () => {
    const logs = captureLogs();
    const history = await openPassHistory(stateDir, 'main', logs.logger, SEAL);
    const record = (i: number): PassRecord => ({
      startedAt: new Date(i * 1000).toISOString(), finishedAt: new Date(i * 1000 + 1).toISOString(), trigger: 'schedule', result: 'success',
      revision: null, changes: [], warnings: [], errors: [],
    } as unknown as PassRecord);
    await Promise.all(Array.from({ length: 10 }, (_, i) => history.add(record(i))));
    const file = stateDirLayout(stateDir).history('main');
    assert.equal(counter.writes(file), 2);
    const written = JSON.parse(withoutSeal(await readFile(file, 'utf8'))) as { passes: PassRecord[] };
    assert.equal(written.passes.length, 10);
    assert.equal(counter.mostAtOnce(), 1);
  });
});

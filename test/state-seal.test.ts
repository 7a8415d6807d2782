/**
 * The state dir's one rule (state-seal.ts): a document opens only with the key, purpose and owner it was sealed with;
 * a pass history that fails it starts afresh; a record of suspended sources that fails it keeps every source it names
 * suspended (it can hold changes back, never let them through).
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openPassHistory } from '../src/operations/history-file.js';
import { openSuspensions } from '../src/operations/suspensions.js';
import type { PassRecord } from '../src/operations/pass-record.js';
import { stateDirLayout } from '../src/state-dir.js';
import { processSeal, stateSeal, withoutSeal } from '../src/state-seal.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';

const URL = 'https://api.example.com/api/v2';
const SEAL = stateSeal('token-one', URL);
const SCOPE = { purpose: 'code cache', owner: 'acme' } as const;

describe('the seal of the state dir', () => {
  it('opens what it sealed, and nothing sealed with another token, API, purpose or owner, nor a changed text', () => {
    const sealed = SEAL.seal(SCOPE, '{"a":1}\n');
    assert.equal(SEAL.open(SCOPE, sealed), '{"a":1}\n');
    assert.equal(stateSeal('token-one', `${URL}/`).open(SCOPE, sealed), '{"a":1}\n', 'a trailing slash names the same API');
    assert.equal(stateSeal('token-two', URL).open(SCOPE, sealed), null);
    assert.equal(stateSeal('token-one', 'https://other.example.com/api/v2').open(SCOPE, sealed), null);
    assert.equal(SEAL.open({ ...SCOPE, owner: 'acme-other' }, sealed), null);
    assert.equal(SEAL.open({ ...SCOPE, purpose: 'evidence cache' }, sealed), null);
    assert.equal(SEAL.open(SCOPE, sealed.replace('"a":1', '"a":2')), null);
    assert.equal(SEAL.open(SCOPE, '{"a":1}\n'), null, 'an unsealed file');
    assert.equal(SEAL.open(SCOPE, sealed.slice(0, 40)), null, 'a truncated seal line');
    assert.equal(processSeal().open(SCOPE, sealed), null);
    assert.equal(withoutSeal(sealed), '{"a":1}\n');
    assert.equal(withoutSeal('{"a":1}\n'), '{"a":1}\n');
  });
});

const record = (result: string): PassRecord => ({ startedAt: '2026-12-01T00:00:00.000Z', finishedAt: '2026-12-01T00:00:01.000Z', result, changes: [], warnings: [], errors: [] } as unknown as PassRecord);

describe('what the daemon reads back from its state dir', () => {
  it('a pass history sealed by this tool is kept; a forged one, or one sealed for another source, starts afresh with a warning', async (t) => {
    const stateDir = await tempTree(t, {}, 'pps-seal-history-');
    const written = await openPassHistory(stateDir, 'prod', captureLogs().logger, SEAL);
    await written.add(record('applied'));
    assert.equal((await openPassHistory(stateDir, 'prod', captureLogs().logger, SEAL)).passes.length, 1);

    const file = stateDirLayout(stateDir).history('prod');
    const forged = `${JSON.stringify({ source: 'prod', passes: [record('no-changes')] })}\n`;
    for (const text of [forged, SEAL.seal({ purpose: 'pass history', owner: 'staging' }, forged)]) {
      await writeFile(file, text);
      const { logger, lines } = captureLogs();
      const history = await openPassHistory(stateDir, 'prod', logger, SEAL);
      assert.deepEqual(history.passes, []);
      assert.ok(lines.some((l) => l.includes('not written by this tool') && l.includes('the history starts afresh')), lines.join(''));
    }
  });

  it('a record of suspended sources that is not sealed keeps the sources it names suspended, with a warning; the next save seals it', async (t) => {
    const stateDir = await tempTree(t, {}, 'pps-seal-suspended-');
    const file = stateDirLayout(stateDir).suspensions;
    await mkdir(path.dirname(file), { recursive: true });
    const listed = `${JSON.stringify({ suspended: { prod: '2026-12-01T00:00:00.000Z' } })}\n`;
    for (const text of [listed, stateSeal('rotated-token', URL).seal({ purpose: 'suspended sources', owner: '' }, listed)]) {
      await writeFile(file, text);
      const { logger, lines } = captureLogs();
      const suspensions = await openSuspensions(stateDir, logger, SEAL);
      assert.equal(suspensions.since('prod'), '2026-12-01T00:00:00.000Z');
      assert.ok(lines.some((l) => l.includes('stay suspended until they are resumed')), lines.join(''));
    }
    const suspensions = await openSuspensions(stateDir, captureLogs().logger, SEAL);
    await suspensions.suspend('staging', new Date('2026-12-01T01:00:00.000Z'));
    assert.deepEqual(JSON.parse(SEAL.open({ purpose: 'suspended sources', owner: '' }, await readFile(file, 'utf8'))!), {
      suspended: { prod: '2026-12-01T00:00:00.000Z', staging: '2026-12-01T01:00:00.000Z' },
    });
    const { logger, lines } = captureLogs();
    assert.equal((await openSuspensions(stateDir, logger, SEAL)).since('staging'), '2026-12-01T01:00:00.000Z');
    assert.deepEqual(lines, []);
  });
});

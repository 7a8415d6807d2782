import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { runCommandLine } from '../src/cli/main.js';
import { createLogger } from '../src/logger.js';
import { ProgressReporter, TerminalLine } from '../src/progress.js';
import { runPass } from '../src/reconcile.js';
import type { SourceConfig } from '../src/config/types.js';
import { runCli } from './helpers/cli.js';
import { smallRepo } from './helpers/repos.js';
import { ORG } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

/** A stdout/stderr stand-in that remembers when each chunk arrived. */
function timedCapture(): { stream: Writable; chunks: Array<{ at: number; text: string }>; text(): string } {
  const chunks: Array<{ at: number; text: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push({ at: Date.now(), text: chunk.toString() });
      done();
    },
  });
  return { stream, chunks, text: () => chunks.map((c) => c.text).join('') };
}

function argv(world: World, mode: string, dir: string, extra: string[] = []): string[] {
  return [mode, '--source-dir', dir, '--organization', ORG, '--api-url', world.url, ...extra];
}

function env(world: World, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', API_TOKEN: world.token, LOG_LEVEL: 'warn', ...more };
}

function many(count: number, prefix: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) files[`policies/bulk/${prefix}-${String(i).padStart(3, '0')}.native`] = `main = rule { ${i} >= 0 }\n`;
  return files;
}

describe('reconcile prints the plan before the first write', () => {
  const fixture = useWorld();

  it('text: the plan is on stdout before any write reaches the API, the outcome after', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    // Slow writes: an apply that printed its plan only at the end would print it well after the first write.
    await world.addFaults({ kind: 'latency', method: 'POST', 'latency-ms': 150, count: 0 });
    await world.clearRequests();
    const stdout = timedCapture();
    const stderr = timedCapture();
    try {
      const code = await runCommandLine(argv(world, '--reconcile', dir), {
        stdout: stdout.stream as unknown as NodeJS.WriteStream, stderr: stderr.stream, env: env(world),
      });
      assert.equal(code, 0, stdout.text() + stderr.text());
    } finally {
      await world.clearFaults();
    }
    const planChunk = stdout.chunks.find((c) => /Plan: \d+ to create/.test(c.text));
    assert.ok(planChunk, stdout.text());
    const writes = await world.writes();
    assert.ok(writes.length > 0);
    for (const write of writes) {
      assert.ok(Date.parse(write.at) >= planChunk.at, `${write.method} ${write.path} answered at ${write.at}, before the plan was printed`);
    }
    const text = stdout.text();
    assert.ok(text.indexOf('Plan: ') < text.indexOf('Apply complete!'), text);
    assert.match(text, /Applied source "[^"]+": \d+ created, 0 updated, 0 replaced, 0 deleted\./);
  });

  it('markdown: the plan first, then the apply result', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/md-one.native': 'main = rule { true }\n' });
    const run = await world.cli('--reconcile', dir, ['--output', 'markdown']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(run.stdout.indexOf('md-one') < run.stdout.indexOf('Apply result'), run.stdout);
    assert.match(run.stdout, /1 created, 0 updated, 0 replaced, 0 deleted/);
  });
});

describe('reconcile --output json carries each change outcome and a result summary', () => {
  const fixture = useWorld();

  it('applied, failed with the message, and the result counts', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({
      'policies/good.native': 'main = rule { true }\n',
      'policies/bad.native': 'main = rule { false }\n',
    });
    await world.addFaults({ kind: 'status', status: 422, method: 'POST', path: '/policies$', count: 1 });
    const run = await world.cli('--reconcile', dir, ['--output', 'json']);
    await world.clearFaults();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const document = JSON.parse(run.stdout) as {
      sources: Array<{ changes: Array<{ name: string; outcome: string; message: string | null }>; errors: string[] }>;
      result: Record<string, number>;
    };
    const changes = document.sources[0]!.changes;
    assert.equal(changes.length, 2);
    const failed = changes.filter((c) => c.outcome === 'failed');
    const applied = changes.filter((c) => c.outcome === 'applied');
    assert.equal(failed.length, 1);
    assert.equal(applied.length, 1);
    assert.match(failed[0]!.message ?? '', /422/);
    assert.equal(applied[0]!.message, null);
    assert.deepEqual(document.result, { applied: 1, failed: 1, skipped: 0 });
  });

  it('a refused plan: every change skipped, saying why', async () => {
    const world = fixture.world;
    // Refused by max-deletes (10): the source now declares one other policy, and its 11 earlier ones are to go.
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`policies/refused-${i}.native`, 'main = rule { true }\n']));
    assert.equal((await world.cli('--reconcile', await fixture.repo(eleven), ['--source', 'default'])).code, 0);
    const other = await fixture.repo({ 'policies/other.native': 'main = rule { true }\n' });
    const run = await world.cli('--reconcile', other, ['--output', 'json', '--prune', '--source', 'default']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const document = JSON.parse(run.stdout) as { sources: Array<{ changes: Array<{ outcome: string; message: string }> }>; result: Record<string, number> };
    const changes = document.sources[0]!.changes;
    assert.ok(changes.length > 0);
    for (const change of changes) {
      assert.equal(change.outcome, 'skipped');
      assert.match(change.message, /not applied/);
    }
    assert.deepEqual(document.result, { applied: 0, failed: 0, skipped: changes.length });
  });

  it('a dry run has neither outcomes nor a result', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/dry.native': 'main = rule { true }\n' });
    const run = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(run.stdout) as { sources: Array<{ changes: Array<Record<string, unknown>> }> } & Record<string, unknown>;
    assert.equal('result' in document, false);
    assert.equal('outcome' in document.sources[0]!.changes[0]!, false);
  });
});

describe('progress and logs', () => {
  const fixture = useWorld();

  it('off a terminal: JSON log lines with the phase and counts, ISO timestamps', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(many(12, 'logged'));
    const run = await runCli(argv(world, '--reconcile', dir), { env: { API_TOKEN: world.token, LOG_LEVEL: 'info' } });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.trim().split('\n').map((line) => JSON.parse(line) as { time: string; msg: string; phase?: string });
    for (const line of lines) assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const applying = lines.filter((l) => l.phase === 'applying');
    assert.ok(applying.length > 0, run.stderr);
    assert.match(applying[0]!.msg, /^applying 0\/12$/);
    assert.ok(lines.some((l) => l.phase === 'reading'), 'the reading phase is reported too');

    const dry = await runCli(argv(world, '--dry-run', dir), { env: { API_TOKEN: world.token, LOG_LEVEL: 'info' } });
    assert.match(dry.stderr, /"phase":"downloading".*"msg":"checking live code 0\/12"/);
  });

  it('reports at least every interval while a phase lasts, with the failures and the time left', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(many(6, 'slow'));
    await world.control('POST', '/faults', {
      faults: [
        { kind: 'status', status: 422, method: 'POST', path: '/policies$', count: 1 },
        { kind: 'latency', method: 'POST', 'latency-ms': 120, count: 0 },
      ],
    });
    const logs = timedCapture();
    const logger = createLogger({ level: 'info', stream: logs.stream });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger, concurrency: 1 });
    const reporter = new ProgressReporter({ logger, intervalMs: 100 });
    const source = { name: 'progress', organization: ORG, prune: false, ownership: 'marker', allowEmpty: false, maxDeletes: 10, maxAgentPools: 1 } as SourceConfig;
    try {
      await runPass({ source, dir, revision: null, api, logger, mode: 'apply', onProgress: (p) => reporter.update(p) });
    } finally {
      reporter.end();
      await api.close();
      await world.clearFaults();
    }
    const applying = logs.chunks
      .map((c) => JSON.parse(c.text) as { msg: string; phase?: string; failed?: number })
      .filter((l) => l.phase === 'applying');
    assert.ok(applying.length >= 4, `only ${applying.length} progress lines in a slow apply: ${logs.text()}`);
    assert.ok(applying.some((l) => /^applying \d\/6 \(1 failed\), about \d+ s left$/.test(l.msg)), applying.map((l) => l.msg).join('\n'));
  });

  it('on a terminal: one line rewritten in place, cleared before each log line', () => {
    const out = timedCapture();
    const line = new TerminalLine({ write: (text: string) => out.stream.write(text) });
    const reporter = new ProgressReporter({ logger: createLogger({ level: 'info', stream: line }), terminal: line, now: () => 0 });
    reporter.update({ source: 'main', phase: 'applying', done: 0, total: 3, failed: 0 });
    line.write('a log line\n');
    reporter.end();
    assert.equal(out.text(), '\r\u001b[2K[main] applying 0/3\r\u001b[2Ka log line\n[main] applying 0/3\r\u001b[2K');
  });

  it('LOG_FORMAT=pretty uses the readable printer; LOG_FORMAT and LOG_LEVEL are checked', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/pretty.native': 'main = rule { true }\n' });
    const pretty = await runCli(argv(world, '--dry-run', dir), { env: { API_TOKEN: world.token, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' } });
    assert.equal(pretty.code, 0);
    assert.match(pretty.stderr, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: reading the declared repo and the live state/m);
    assert.doesNotMatch(pretty.stderr, /^\{/m);

    const level = await runCli(argv(world, '--dry-run', dir), { env: { API_TOKEN: world.token, LOG_LEVEL: 'verbose' } });
    assert.equal(level.code, 1);
    assert.equal(level.stderr, 'error: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent; got "verbose"\n');
    const format = await runCli(argv(world, '--dry-run', dir), { env: { API_TOKEN: world.token, LOG_FORMAT: 'xml' } });
    assert.equal(format.code, 1);
    assert.equal(format.stderr, 'error: LOG_FORMAT must be pretty or json; got "xml"\n');
  });
});

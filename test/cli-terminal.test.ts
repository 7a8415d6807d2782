/** What a person sees on a terminal (a pseudo-terminal, through `script`): one line per log record, no request counts, no warnings of Node's own. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CLI } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const run = promisify(execFile);

/** `'…'` for sh. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

describe('a 300-policy reconcile on a terminal', () => {
  const fixture = useWorld();

  it('logs one line per record, leaves the request counts to debug, and has no warning of Node (--trace-warnings)', async () => {
    const { world } = fixture;
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i += 1) files[`policies/term-${i}.native`] = `main = rule { ${i} >= 0 }\n`;
    const dir = await fixture.repo(files);
    const command = [process.execPath, '--trace-warnings', CLI, '--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', world.url].map(quote).join(' ');
    // script gives the command a terminal for stdout and stderr, and copies what it printed to its own stdout.
    const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', API_TOKEN: world.token, LOG_LEVEL: 'info', STATE_DIR: world.stateDir, TERM: 'xterm' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const text = stdout.replace(/\r/g, '').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    assert.match(text, /Apply complete! Resources: 300 created/);
    assert.doesNotMatch(text, /plan made/, 'the plan says what was planned');
    assert.doesNotMatch(text, /^\s+(source|changes|errors|resourceName): /m, 'no field on a line of its own');
    assert.doesNotMatch(text, /api requests|rateLimitWaitSeconds/);
    assert.doesNotMatch(text, /change applied/, 'the plan and the summary say what was applied');
    assert.doesNotMatch(text, /Warning|\(node:\d+\)/);
    assert.equal((await world.policies()).filter((p) => String(p.name).startsWith('term-')).length, 300);
  });
});

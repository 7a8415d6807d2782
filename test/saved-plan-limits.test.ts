/**
 * A saved plan is input from outside: its size is capped before it is read, and what it says (names, reasons,
 * values, warnings) is shown with control characters escaped, in the text plan and in --show, as live names are.
 */
import assert from 'node:assert/strict';
import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderMarkdown, renderText } from '../src/output/index.js';
import { runCli } from './helpers/cli.js';
import { richPlans } from './helpers/output-plans.js';
import { useWorld } from './helpers/world.js';

type Json = Record<string, any>;

const HOSTILE = 'x\u001b[2J\u001b]0;owned\u0007\r\u202eyes\u0085';
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

describe('a saved plan read and shown safely', () => {
  const fixture = useWorld();

  it('refuses a 300 MB saved plan unread, naming the file and the cap', async () => {
    const file = path.join(await fixture.repo({}), 'huge.json');
    const handle = await open(file, 'w');
    await handle.truncate(300 * 1024 * 1024);
    await handle.close();
    const shown = await runCli(['--show', file]);
    assert.equal(shown.code, 1, shown.stdout + shown.stderr);
    assert.ok(shown.stderr.includes(`the saved plan ${file} is 300.0 MB, more than the 32.0 MB a saved plan may be`), shown.stderr);
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/big.native': 'main = rule { true }\n' });
    const applied = await world.cli('--reconcile', dir, ['--source', 'big', '--plan', file]);
    assert.equal(applied.code, 1, applied.stdout + applied.stderr);
    assert.match(applied.stderr, /is 300\.0 MB, more than the 32\.0 MB a saved plan may be/);
  });

  it('--show escapes control characters in names, reasons, values, warnings and errors of the file', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/shown.native': 'main = rule { true }\n' });
    const file = path.join(await fixture.repo({}), 'plan.json');
    assert.equal((await world.cli('--dry-run', dir, ['--source', 'shown', '--out', file])).code, 0);
    const document = JSON.parse(await readFile(file, 'utf8')) as Json;
    const source = document['sources'][0];
    const change = source['changes'][0];
    change['name'] = `name${HOSTILE}`;
    change['reason'] = `reason${HOSTILE}`;
    change['fields']['description'] = { before: null, after: `value${HOSTILE}` };
    source['warnings'] = [`warning${HOSTILE}`];
    source['revision'] = `rev${HOSTILE}`;
    await writeFile(file, JSON.stringify(document));
    for (const output of ['text', 'markdown']) {
      const shown = await runCli(['--show', file, '--output', output]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.doesNotMatch(shown.stdout, UNPRINTABLE, output);
      if (output === 'text') assert.ok(shown.stdout.includes('"valuex\\u001b[2J\\u001b]0;owned\\u0007\\r\\u{202e}yes\\u{85}"'), shown.stdout);
      const fields = output === 'text' ? ['name', 'reason', 'warning', 'rev'] : ['name', 'reason'];
      for (const what of fields) assert.ok(shown.stdout.includes(`${what}x\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{d}\\u{202e}yes\\u{85}`), `${output}: ${what}\n${shown.stdout}`);
    }
  });

  it('the text and Markdown plans escape control characters in live names', () => {
    const plans = richPlans();
    const change = plans[0]!.plan!.changes[0]!;
    change.name = `live${HOSTILE}`;
    const text = renderText(plans, { color: false });
    assert.doesNotMatch(text, UNPRINTABLE);
    assert.ok(text.includes('livex\\u{1b}[2J'), text);
    assert.doesNotMatch(renderMarkdown(plans), UNPRINTABLE);
  });
});

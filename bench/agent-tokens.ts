/**
 * What declared agent tokens cost and show: POOLS pools, each declaring two tokens (one rotated every 30 days), made
 * by a first pass; then the API requests of a no-op dry run (the goal: the pool list plus one token list per pool that
 * declares tokens, beside the policy list every pass reads), and the plan of a pool with two tokens mid-rotation (one
 * token aged past rotate-after, its successor made and not yet used), as a reviewer reads it.
 * Run: node --import tsx bench/agent-tokens.ts [POOLS=3]
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { runCommandLine } from '../src/cli/main.js';
import { startEmulator } from '../src/emulator/index.js';

const ORG = 'bench-org';
const POOLS = Number(process.argv[2] ?? 3);
const names = Array.from({ length: POOLS }, (_, i) => `pool-${i}`);

function capture(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  return { stream: new Writable({ write: (chunk: Buffer, _e, done) => (chunks.push(chunk.toString()), done()) }), text: () => chunks.join('') };
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token-agent-tokens', rateLimit: 0, organizations: [{ name: ORG, maxAgentPools: POOLS, agentPools: names.map((name) => ({ name })) }] } });
  const root = mkdtempSync(path.join(tmpdir(), 'pps-bench-tokens-'));
  try {
    const repo = path.join(root, 'repo');
    const tokens = path.join(root, 'tokens');
    mkdirSync(path.join(repo, 'agent-pools'), { recursive: true });
    mkdirSync(tokens);
    for (const name of names) {
      const file = `tokens:\n  - description: k8s-prod\n    deliver-to: { file: ${name}-prod }\n    rotate-after: 30d\n  - description: k8s-staging\n    deliver-to: { file: ${name}-staging }\n`;
      writeFileSync(path.join(repo, 'agent-pools', `${name}.yaml`), file);
    }
    const cli = async (mode: string, extra: string[] = []): Promise<{ code: number; stdout: string }> => {
      const stdout = capture();
      const code = await runCommandLine([mode, '--source-dir', repo, '--organization', ORG, '--api-url', emulator.url, '--token-dir', tokens, '--max-agent-pools', String(POOLS), ...extra], {
        stdout: stdout.stream as unknown as NodeJS.WriteStream, stderr: capture().stream, env: { API_TOKEN: emulator.token, LOG_LEVEL: 'error', NO_COLOR: '1' },
      });
      return { code, stdout: stdout.text() };
    };
    const control = async (method: string, route: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${emulator.origin}/_emulator${route}`, { method, headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return res.json();
    };
    const made = await cli('--reconcile');
    if (made.code !== 0) throw new Error(`the first pass failed:\n${made.stdout}`);

    await control('DELETE', '/requests');
    const noop = await cli('--dry-run', ['--detailed-exitcode']);
    const requests = ((await control('GET', '/requests')) as { requests: Array<{ method: string; path: string }> }).requests;
    const tokenLists = requests.filter((r) => r.path.split('?')[0]!.endsWith('/authentication-tokens')).length;
    console.log(`no-op dry run with ${POOLS} pools declaring 2 tokens each: exit ${noop.code}, ${requests.length} requests (${tokenLists} token lists)`);
    for (const r of requests) console.log(`  ${r.method} ${r.path.split('?')[0]!.replace(/apool-\w+/, 'apool-…')}`);

    // One pool mid-rotation: its k8s-prod token made 31 days ago, its successor made by the next pass, not yet used.
    const state = (await control('GET', '/state')) as { organizations: Array<{ 'agent-pools': Array<{ name: string; tokens: Array<{ id: string; description: string }> }> }> };
    const first = state.organizations[0]!['agent-pools'].find((p) => p.name === names[0])!.tokens.find((t) => t.description === 'k8s-prod')!;
    await control('PATCH', `/authentication-tokens/${first.id}`, { 'created-at': new Date(Date.now() - 31 * 86_400_000).toISOString(), 'last-used-at': new Date(Date.now() - 3_600_000).toISOString() });
    const rotated = await cli('--reconcile');
    if (rotated.code !== 0) throw new Error(`the rotating pass failed:\n${rotated.stdout}`);
    const between = await cli('--dry-run');
    console.log(`\nthe plan of pool "${names[0]}" mid-rotation (the successor made, not yet used):\n`);
    console.log(between.stdout.split('\n').filter((line) => !line.includes(`"${names[1]}"`) && !line.includes(`"${names[2]}"`)).join('\n'));
  } finally {
    rmSync(root, { recursive: true, force: true });
    await emulator.close();
  }
}

await main();

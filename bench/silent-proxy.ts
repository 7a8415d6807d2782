/**
 * A proxy that accepts every connection and never answers `CONNECT`: how long a one-shot `--dry-run` takes to fail,
 * with the default request timeout (30 s), retry budget (60 s) and tunnel deadline (10 s). The goal: within 45 s, and
 * never longer than the retry budget.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-proxy-'));
mkdirSync(path.join(root, 'policies'));
writeFileSync(path.join(root, 'policies/p.native'), 'main = rule { true }\n');
const sockets = new Set<Socket>();
let connects = 0;
const proxy = createServer((socket) => {
  connects += 1;
  sockets.add(socket);
  socket.on('error', () => undefined);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const { port } = proxy.address() as AddressInfo;

const started = performance.now();
const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--dry-run', '--source-dir', root, '--organization', 'acme', '--api-url', 'https://api.invalid/api/v2', '--no-cache'], {
  env: { PATH: process.env.PATH, API_TOKEN: 'bench-token-0123456789', HTTPS_PROXY: `http://127.0.0.1:${port}`, LOG_LEVEL: 'error' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let said = '';
child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
const seconds = (performance.now() - started) / 1000;
for (const socket of sockets) socket.destroy();
proxy.close();
rmSync(root, { recursive: true, force: true });
console.log(`silent proxy: the one-shot run ended with exit ${String(code)} after ${seconds.toFixed(1)} s, ${connects} CONNECTs (goal: within 45 s)`);
console.log(`  ${said.split('\n').find((line) => line.includes('tunnel')) ?? said.trim().split('\n').at(-1)}`);
process.exitCode = code === 1 && seconds < 45 ? 0 : 1;

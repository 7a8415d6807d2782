/** `npm run bench`: runs every benchmark script in turn (bench/lib holds what they share); each prints its own figures. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const scripts = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts').sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n== ${script}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${here}${script}`], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;

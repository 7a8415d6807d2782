import { readFileSync } from 'node:fs';
import { EMBEDDED } from './embedded.js';

let cached: string | null = null;

/** The `version` of package.json (read once; the file ships next to `dist`, and inside the bundle). */
export function packageVersion(): string {
  cached ??= EMBEDDED?.version ?? (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

/** What every API request names itself: `policy-pool-sync/<version>`. */
export function userAgent(): string {
  return `policy-pool-sync/${packageVersion()}`;
}

import { readFileSync } from 'node:fs';

let cached: string | null = null;

/** The `version` of package.json (read once; the file ships next to `dist`). */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

/** What every API request names itself: `policy-pool-sync/<version>`. */
export function userAgent(): string {
  return `policy-pool-sync/${packageVersion()}`;
}

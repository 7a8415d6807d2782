import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * NODE_OPTIONS as the image sets them (the Dockerfile's ENV, quoted or not), or the value of the environment
 * variable `override` names when it is set (an empty value runs with no flags).
 */
export function imageNodeOptions(override: string): string {
  const fromEnv = process.env[override];
  if (fromEnv !== undefined) return fromEnv;
  const dockerfile = readFileSync(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
  const match = /\bNODE_OPTIONS=(?:"([^"]*)"|(\S+))/.exec(dockerfile);
  return match?.[1] ?? match?.[2] ?? '';
}

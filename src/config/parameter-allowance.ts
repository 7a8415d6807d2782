/**
 * The allow-list of what a policy set's sensitive parameters may read: the operator's (`--parameter-env`,
 * `--parameter-files`, `parameters:` in the config), never the repo's, and never what this tool reads for itself.
 * Decisions only; `declared/sensitive-values.ts` reads what they allow.
 */
import path from 'node:path';
import { isInside } from '../path-inside.js';
import { ownSecretSources } from './secrets.js';
import type { ParameterAllowance } from './types.js';

/** Nothing allowed: the allowance of a source that says none. */
export const NO_PARAMETERS: ParameterAllowance = { env: [], files: null, reserved: ownSecretSources(null) };

/** A pattern of `--parameter-env` and `parameters.env`: a variable name, or a prefix ending in `*`. */
const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Where the advice of a refusal points: the flag, its config key and the Action's input. */
export const ALLOW_ENV = '--parameter-env';
export const ALLOW_FILES = '--parameter-files';

/** Why `pattern` is not a pattern of variable names, or null. */
export function parameterPatternProblem(pattern: string): string | null {
  if (pattern === '*') return '"*" would let the repo read every variable of the runner: name a variable, or a prefix ending in * (POLICY_PARAM_*)';
  return PATTERN.test(pattern) ? null : `"${pattern}" is not a variable name, nor a prefix ending in * (POLICY_PARAM_*)`;
}

/** Whether variable `name` is `pattern`, or starts with the prefix a `*` ends. */
export function matchesPattern(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** Why `{env: name}` may not be read under `allowance`, or null: the tool's own secrets first, then the allow-list. */
export function envRefusal(name: string, allowance: ParameterAllowance): string | null {
  const reserved = [...NO_PARAMETERS.reserved.env, ...allowance.reserved.env];
  if (reserved.some((pattern) => matchesPattern(name, pattern))) return `{env: ${name}} names a secret this tool reads for itself; a parameter never reads it`;
  if (allowance.env.some((pattern) => matchesPattern(name, pattern))) return null;
  return `{env: ${name}} is not allowed: the operator allows what a parameter may read (${ALLOW_ENV} ${name}, or parameters.env in the config)`;
}

/** Whether `file` (absolute) is, or is inside, one of the files and folders this tool never lets a parameter read. */
export function isNeverReadable(file: string, allowance: ParameterAllowance): boolean {
  return [...NO_PARAMETERS.reserved.files, ...allowance.reserved.files].some((reserved) => isInside(reserved, file));
}

/** A refusal's advice for a file when the operator allowed no folder. */
export const NO_FOLDER = `no folder is allowed: the operator allows one (${ALLOW_FILES} DIR, or parameters.files in the config)`;

/**
 * What a policy imports, found as its code is read, and the imports that will fail on the service: a policy is uploaded
 * alone, with no modules and no other packages than the declared ones, so such an import only fails when the policy
 * runs, long after the upload succeeded.
 */
import type { SourceProblem } from '../errors.js';
import type { PolicyKind } from '../model.js';

/** Sentinel's plan imports and standard library: what a policy uploaded alone can import. */
export const SENTINEL_STANDARD_IMPORTS: ReadonlySet<string> = new Set([
  'tfplan', 'tfplan/v2', 'tfconfig', 'tfconfig/v2', 'tfstate', 'tfstate/v2', 'tfrun',
  'strings', 'time', 'json', 'decimal', 'types', 'units', 'base64', 'http', 'runtime', 'sockaddr', 'version',
  'collection', 'collection/lists', 'collection/maps',
]);

/** One import statement: what it names and the line it is on (1-based). */
export interface ImportLine {
  target: string;
  line: number;
}

/** What the scan of one code file found: its imports, and for Rego the package it declares. */
export interface ImportFacts {
  imports: ImportLine[];
  /** Rego only: the package, e.g. `terraform.lib`; null when none was found. */
  regoPackage: string | null;
}

/** A line longer than this is not an import statement; the scan keeps no more of one. */
const MAX_LINE_CHARS = 4096;
const SENTINEL_IMPORT = /^\s*import\s+"([^"]+)"/;
const REGO_IMPORT = /^\s*import\s+data\.([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/;
const REGO_PACKAGE = /^\s*package\s+([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/;

/** Scans code chunk by chunk (as the reader hands them over), line by line, keeping only import and package lines. */
export function createImportScan(kind: PolicyKind): { update(chunk: Uint8Array): void; finish(): ImportFacts } {
  const decoder = new TextDecoder('utf-8');
  const facts: ImportFacts = { imports: [], regoPackage: null };
  let carry = '';
  let lineNumber = 0;
  const take = (line: string): void => {
    lineNumber += 1;
    if (kind === 'opa') {
      const found = REGO_IMPORT.exec(line);
      if (found !== null) facts.imports.push({ target: found[1] as string, line: lineNumber });
      const pkg = facts.regoPackage === null ? REGO_PACKAGE.exec(line) : null;
      if (pkg !== null) facts.regoPackage = pkg[1] as string;
      return;
    }
    const found = SENTINEL_IMPORT.exec(line);
    if (found !== null) facts.imports.push({ target: found[1] as string, line: lineNumber });
  };
  const feed = (text: string, last: boolean): void => {
    const lines = (carry + text).split('\n');
    carry = last ? '' : (lines.pop() as string).slice(0, MAX_LINE_CHARS);
    for (const line of lines) take(line);
  };
  return {
    update: (chunk) => feed(decoder.decode(chunk, { stream: true }), false),
    finish: () => {
      feed(decoder.decode(), true);
      return facts;
    },
  };
}

/** A code file's import facts, with the file they came from. */
export interface FileImports extends ImportFacts {
  file: string;
  kind: PolicyKind;
}

/** An import that will fail on the service: what it names, where, and why. */
export interface UnresolvedImport {
  file: string;
  line: number;
  /** `"name"` for a Sentinel import, `data.package` for a Rego one: as the code writes it. */
  target: string;
  /** Why it fails on the service. */
  reason: string;
}

/** How many files a grouped import warning names before it counts the rest. */
const FILES_NAMED = 3;

/**
 * The imports that will fail on the service, one each naming the file, the line and the import: a Sentinel import that
 * is neither standard nor a plan import (a module of the repo), and a Rego `import data.<package>` that no declared
 * `.rego` file declares. Sorted by file, then line as a number.
 */
export function unresolvedImports(files: readonly FileImports[]): UnresolvedImport[] {
  const packages = new Set(files.flatMap((f) => (f.kind === 'opa' && f.regoPackage !== null ? [f.regoPackage] : [])));
  const provided = (target: string): boolean => {
    for (let path = target; path !== ''; path = path.slice(0, Math.max(0, path.lastIndexOf('.')))) {
      if (packages.has(path)) return true;
    }
    return false;
  };
  const found: UnresolvedImport[] = [];
  for (const file of files) {
    for (const { target, line } of file.imports) {
      if (file.kind === 'opa' && !provided(target)) {
        found.push({ file: file.file, line, target: `data.${target}`, reason: 'a package no declared .rego file declares: a policy is uploaded alone, so the import fails when it runs' });
      } else if (file.kind === 'native' && !SENTINEL_STANDARD_IMPORTS.has(target)) {
        found.push({ file: file.file, line, target: `"${target}"`, reason: 'neither a standard nor a plan import: a policy is uploaded alone, without modules, so the import fails when it runs' });
      }
    }
  }
  return found.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
}

/** Each unresolved import as a problem of its own (`--strict-imports` makes them errors). */
export function importProblems(imports: readonly UnresolvedImport[]): SourceProblem[] {
  return imports.map(({ file, line, target, reason }) => ({ file, line, message: `imports ${target}, ${reason}` }));
}

/**
 * The warning lines for unresolved imports, one per thing imported: an import found in one file is named with its file
 * and line; one found in several names how many policies, the first few files and how many more. In the order of the
 * first file that imports each.
 */
export function importWarnings(imports: readonly UnresolvedImport[], advice: string): string[] {
  const byTarget = new Map<string, UnresolvedImport[]>();
  for (const found of imports) byTarget.set(found.target, [...(byTarget.get(found.target) ?? []), found]);
  return [...byTarget.values()].map((all) => {
    const first = all[0] as UnresolvedImport;
    if (all.length === 1) return `${first.file}:${first.line}: imports ${first.target}, ${first.reason} (${advice})`;
    const files = new Set(all.map((found) => found.file)).size;
    const named = all.slice(0, FILES_NAMED).map((found) => `${found.file}:${found.line}`);
    const more = all.length > FILES_NAMED ? `, and ${all.length - FILES_NAMED} more` : '';
    return `imports ${first.target} in ${files} policies (${named.join(', ')}${more}): ${first.reason} (${advice})`;
  });
}

/**
 * The one HCL parser, for policy set config files (`sentinel.hcl`, `policies.hcl`): HashiCorp's own hcl library
 * (Go), compiled to WebAssembly, as @cdktf/hcl2json ships it. A file parses to its JSON form: labelled blocks as
 * `{ "<type>": { "<label>": [ {<body>} ] } }` (`import "module" "report" {…}` is `import.module.report[0]`), attributes
 * as their values. Loaded on first use (about a second: the WebAssembly module starts). The package's type
 * declarations pull the DOM's types into every file that sees them, so it is imported untyped (a specifier typed as a
 * string, which esbuild still bundles), and typed here. In the bundle, its WebAssembly file is `hcl2json.wasm.gz`
 * beside the bundle (scripts/bundle.mjs).
 */

export type HclDocument = Record<string, unknown>;

interface Hcl2Json {
  parse(file: string, text: string): Promise<HclDocument>;
}

let loaded: Hcl2Json | null = null;

/** An HCL file that does not parse: the library's messages, each `<file>:<line>,<column>-<column>: <summary>; <detail>`. */
export class HclSyntaxError extends Error {
  override name = 'HclSyntaxError';
}

async function loadHcl2Json(): Promise<Hcl2Json> {
  const module = (await import('@cdktf/hcl2json' as string)) as Partial<Hcl2Json> & { default?: Hcl2Json };
  return typeof module.parse === 'function' ? (module as Hcl2Json) : module.default!;
}

/** The JSON form of `text`; `file` names it in messages. Rejects with HclSyntaxError when it is not valid HCL. */
export async function parseHcl(file: string, text: string): Promise<HclDocument> {
  loaded ??= await loadHcl2Json();
  try {
    return await loaded.parse(file, text);
  } catch (error) {
    // Inline, not errors.ts's errorMessage: a module of the base layer imports no other.
    const message = error instanceof Error ? error.message : String(error);
    // `parse config: [a.hcl:1,5-5: Missing expression; …]` → `a.hcl:1,5-5: Missing expression; …`
    throw new HclSyntaxError(message.replace(/^parse config: \[/, '').replace(/\]$/, ''));
  }
}

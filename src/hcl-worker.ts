/**
 * The worker thread of `hcl.ts`: it loads HashiCorp's hcl (Go compiled to WebAssembly, `@cdktf/hcl2json`) and parses
 * the texts it is sent, one at a time, answering each with its JSON form or the parser's message. The Go runtime (its
 * `globalThis.Go` and its memory, which never shrinks) lives and dies with this thread, never in the main one.
 */
import { parentPort } from 'node:worker_threads';

/** A request of the main thread: parse `text`, shown as `file`. */
export interface HclRequest {
  id: number;
  file: string;
  text: string;
}

/** The answer: the document, or the parser's message. */
export type HclAnswer = { id: number; document: Record<string, unknown> } | { id: number; error: string };

interface Hcl2Json {
  parse(file: string, text: string): Promise<Record<string, unknown>>;
}

async function loadHcl2Json(): Promise<Hcl2Json> {
  // Untyped on purpose: the package's declarations pull the DOM's types into every file that sees them.
  const module = (await import('@cdktf/hcl2json' as string)) as Partial<Hcl2Json> & { default?: Hcl2Json };
  return typeof module.parse === 'function' ? (module as Hcl2Json) : module.default!;
}

const port = parentPort;
if (port !== null) {
  const loading = loadHcl2Json();
  port.on('message', (request: HclRequest) => {
    void loading
      .then((hcl) => hcl.parse(request.file, request.text))
      .then(
        (document): HclAnswer => ({ id: request.id, document }),
        (error: unknown): HclAnswer => ({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
      )
      .then((answer) => port.postMessage(answer));
  });
}

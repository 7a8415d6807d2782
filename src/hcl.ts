/**
 * The one HCL parser, for policy set config files (`sentinel.hcl`, `policies.hcl`): HashiCorp's own hcl library
 * (Go), compiled to WebAssembly, as @cdktf/hcl2json ships it. A file parses to its JSON form: labelled blocks as
 * `{ "<type>": { "<label>": [ {<body>} ] } }` (`import "module" "report" {…}` is `import.module.report[0]`), attributes
 * as their values.
 *
 * The parser is synchronous and its memory grows with the text (a 0.8 MB file takes seconds and about 130 MiB), so it
 * runs in a worker thread (`hcl-worker.ts`), never on the event loop: a text over `MAX_HCL_BYTES` is refused before
 * it is sent, and a parse that outlasts `HCL_TIME_LIMIT_MS` ends the worker. The worker starts on first use (about a
 * second: the WebAssembly module starts), never holds the process open, and is ended after a text over
 * `RECYCLE_AFTER_BYTES`, so the memory a large parse took is given back. In the bundle, the worker is
 * `hcl-worker.mjs` and its WebAssembly file `hcl2json.wasm.gz`, both beside the bundle (scripts/bundle.mjs).
 */
import { Worker } from 'node:worker_threads';
import type { HclAnswer, HclRequest } from './hcl-worker.js';

export type HclDocument = Record<string, unknown>;

/** The largest config file parsed: ten times the largest library seen (AWS FSBP's sentinel.hcl, 52 kB, 281 policies). */
export const MAX_HCL_BYTES = 524_288;
/** How long one parse may take: a text at the size cap takes a few seconds on a busy machine. */
export const HCL_TIME_LIMIT_MS = 30_000;
/** After a text this large the worker is ended: its WebAssembly memory never shrinks. */
const RECYCLE_AFTER_BYTES = 65_536;

/** An HCL file that does not parse: the library's messages, each `<file>:<line>,<column>-<column>: <summary>; <detail>`. */
export class HclSyntaxError extends Error {
  override name = 'HclSyntaxError';
}

/** An HCL file this tool will not parse: over `MAX_HCL_BYTES`, or longer to parse than the time limit. A fault of the file too. */
export class HclLimitError extends HclSyntaxError {
  override name = 'HclLimitError';
}

export interface ParseHclOptions {
  /** @default HCL_TIME_LIMIT_MS */
  timeLimitMs?: number;
}

interface Pending {
  resolve(document: HclDocument): void;
  reject(error: Error): void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();
/** Parses run one at a time, so that the time limit of one never counts another's time, nor ends another's parse. */
let queue: Promise<unknown> = Promise.resolve();
/** The wall clock, as it was when this module loaded: a test's mocked timers never stop the limit of a real parse. */
const wallClock = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };

/** The thread id of the worker that parses now, or null when none runs (none started yet, or ended after a large text). */
export function hclWorkerThreadId(): number | null {
  return worker?.threadId ?? null;
}

/** The worker's file beside this one, with this one's extension: `.ts` under tsx, `.js` built, `.mjs` in the bundle. */
function workerUrl(): URL {
  const here = import.meta.url;
  return new URL(`./hcl-worker${here.slice(here.lastIndexOf('.'))}`, here);
}

function startWorker(): Worker {
  const url = workerUrl();
  // A worker thread does not inherit tsx's loader: under tsx (the sources run as they are), the worker registers it first.
  const started = url.pathname.endsWith('.ts')
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true })
    : new Worker(url);
  started.on('message', (answer: HclAnswer) => {
    const waiting = pending.get(answer.id);
    pending.delete(answer.id);
    if (waiting === undefined) return;
    if ('document' in answer) waiting.resolve(answer.document);
    else waiting.reject(new HclSyntaxError(answer.error.replace(/^parse config: \[/, '').replace(/\]$/, '')));
  });
  started.on('error', (error) => endWorker(started, error));
  started.on('exit', (code) => endWorker(started, new Error(`the HCL parser's worker stopped (exit code ${code})`)));
  // After the listeners: adding a 'message' listener refs the worker again.
  started.unref();
  return started;
}

/** Ends `ended` (if it is still the worker) and fails whatever waits on it. */
function endWorker(ended: Worker, error: Error): void {
  if (worker !== ended) return;
  worker = null;
  void ended.terminate();
  const waiting = [...pending.values()];
  pending.clear();
  for (const entry of waiting) entry.reject(error);
}

/**
 * The JSON form of `text`; `file` names it in messages. Rejects with HclSyntaxError when it is not valid HCL, and with
 * HclLimitError when it is over `MAX_HCL_BYTES` (before anything is parsed) or outlasts the time limit.
 */
export async function parseHcl(file: string, text: string, options: ParseHclOptions = {}): Promise<HclDocument> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_HCL_BYTES) throw new HclLimitError(`${file} is ${bytes} bytes; a config file may be at most ${MAX_HCL_BYTES} bytes (512 KiB)`);
  const turn = queue.then(() => parseInWorker(file, text, bytes, options.timeLimitMs ?? HCL_TIME_LIMIT_MS));
  queue = turn.catch(() => undefined);
  return turn;
}

async function parseInWorker(file: string, text: string, bytes: number, limit: number): Promise<HclDocument> {
  worker ??= startWorker();
  const current = worker;
  const id = (nextId += 1);
  const request: HclRequest = { id, file, text };
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<HclDocument>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      // Ref'd: the worker is not, and the process must wait for the answer.
      timer = wallClock.setTimeout(() => endWorker(current, new HclLimitError(`${file} took longer than ${limit / 1000} s to parse; make it smaller`)), limit);
      current.postMessage(request);
    });
  } finally {
    wallClock.clearTimeout(timer);
    if (bytes > RECYCLE_AFTER_BYTES) endWorker(current, new Error('the HCL parser was restarted'));
  }
}

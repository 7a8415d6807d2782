/** Replies, error documents and body reading shared by every route. */
import type { IncomingMessage } from 'node:http';

export const JSON_API = 'application/vnd.api+json';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless it is a Buffer; absent for an empty body. */
  body?: unknown;
}

export interface ErrorObject {
  status: string | number;
  title: string;
  detail?: string;
  /** JSON:API: the attribute (`pointer`) or the query parameter (`parameter`) at fault. */
  source?: { pointer: string } | { parameter: string };
}

/**
 * Thrown by handlers; the server turns it into a JSON:API error document. It stays here rather than in errors.ts: it
 * is not a failure of the product but the emulated service's answer (a status and the service's error objects), and
 * the emulator stands apart from the product's code.
 */
export class ReplyError extends Error {
  override name = 'ReplyError';
  constructor(readonly status: number, readonly errors: ErrorObject[]) {
    super(errors[0]?.detail ?? errors[0]?.title ?? String(status));
  }
}

export function errorReply(status: number, errors: ErrorObject[]): Reply {
  return { status, body: { errors } };
}

export function notFound(): ReplyError {
  return new ReplyError(404, [{ status: '404', title: 'not found' }]);
}

export function invalid(detail: string, pointer: string): ReplyError {
  return new ReplyError(422, [{ status: '422', title: 'invalid attribute', detail, source: { pointer } }]);
}

export function badRequest(detail: string): ReplyError {
  return new ReplyError(400, [{ status: '400', title: 'bad request', detail }]);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function requireMediaType(req: IncomingMessage, expected: string): void {
  if (mediaType(req) === expected) return;
  throw new ReplyError(415, [{ status: '415', title: 'unsupported media type', detail: `Content-Type must be ${expected}` }]);
}

export function tooLarge(limit: number): ReplyError {
  return new ReplyError(413, [{ status: '413', title: 'payload too large', detail: `request body larger than ${limit} bytes` }]);
}

/**
 * Reads the whole body, refusing more than `limit` bytes: by Content-Length up front, else while streaming.
 * The rest of a refused body is drained and discarded, so the connection can still carry the answer.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const received = RECEIVED.get(req);
  if (received !== undefined) return received.then((body) => (body.length > limit ? Promise.reject(tooLarge(limit)) : body));
  return streamBody(req, limit);
}

/** Bodies read as they arrived, before the request was handled (see `receiveBody`). */
const RECEIVED = new WeakMap<IncomingMessage, Promise<Buffer>>();

/**
 * Reads the body now, as a server does on receipt, for the handler that runs later (`readBody` returns it): a request
 * held before it is handled (the `latency` fault) is applied once its body is in, even when the client has gone away
 * meanwhile, as a real server applies a write already on the wire. Resolves once the body is in, or fails with it.
 */
export function receiveBody(req: IncomingMessage, limit: number): Promise<void> {
  const body = streamBody(req, limit);
  RECEIVED.set(req, body);
  return body.then(() => undefined);
}

function streamBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      chunks.length = 0;
      req.resume();
      reject(tooLarge(limit));
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Reads a JSON body after checking the media type; text that is not JSON is a 400. */
export async function readJsonBody(req: IncomingMessage, expectedType: string, limit = 1_048_576): Promise<unknown> {
  requireMediaType(req, expectedType);
  const raw = await readBody(req, limit);
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { createCodeScan } from '../code-content.js';
import { apiError, isSuccess } from './responses.js';
import type { HttpResponse } from './http-types.js';
import type { Transport } from './transport.js';
import { MAX_DOWNLOAD_BYTES } from './body-cap.js';
import { downgradeError } from './download-redirect.js';

const MAX_REDIRECTS = 5;

/** A download read as it streamed: the digest of its code, and its text when it was small enough to keep. */
export interface StreamedCode {
  /** The code's digest as compared (src/code-content.ts), from its bytes. */
  digest: string;
  /** null when the code is larger than asked to keep. */
  text: string | null;
}

/**
 * GETs `links.download` without following redirects, then the `Location` it names (absolute or
 * relative) WITHOUT the token: it is a temporary URL, possibly on another host. Returns the raw text,
 * or null when `links.download` itself answers 404: the service's way of saying no code was uploaded yet.
 */
export async function fetchDownload(transport: Transport, signal: AbortSignal | undefined, downloadUrl: string): Promise<string | null> {
  return (await follow(transport, signal, downloadUrl))?.text ?? null;
}

/** The same download as bytes exactly as stored (byte order mark and line ends untouched), for export; null on a 404. */
export async function fetchDownloadBytes(transport: Transport, signal: AbortSignal | undefined, downloadUrl: string): Promise<Buffer | null> {
  const consume = async (body: AsyncIterable<Uint8Array>): Promise<Buffer> => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return Buffer.concat(chunks);
  };
  const response = await follow(transport, signal, downloadUrl, consume);
  return response === null ? null : (response.consumed as Buffer);
}

/**
 * The same download, hashed as it streams: the text is kept only up to `keepTextBytes` bytes, so a large policy
 * costs no more memory than a chunk. null on a 404, as for fetchDownload.
 */
export async function fetchDownloadDigest(
  transport: Transport,
  signal: AbortSignal | undefined,
  downloadUrl: string,
  keepTextBytes: number,
): Promise<StreamedCode | null> {
  const consume = async (body: AsyncIterable<Uint8Array>): Promise<StreamedCode> => {
    const scan = createCodeScan();
    let kept: Uint8Array[] | null = [];
    let size = 0;
    for await (const chunk of body) {
      scan.update(chunk);
      size += chunk.byteLength;
      if (kept !== null && size <= keepTextBytes) kept.push(chunk);
      else kept = null;
    }
    // Decoded keeping a byte order mark: the text is the bytes, as the declared side reads its files.
    const text = kept === null ? null : new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.concat(kept));
    return { digest: scan.finish().codeDigest, text };
  };
  const response = await follow(transport, signal, downloadUrl, consume);
  return response === null ? null : (response.consumed as StreamedCode);
}

async function follow(
  transport: Transport,
  signal: AbortSignal | undefined,
  downloadUrl: string,
  consume?: (body: AsyncIterable<Uint8Array>) => Promise<unknown>,
): Promise<HttpResponse | null> {
  let url = downloadUrl;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await transport.send({ method: 'GET', url, auth: hop === 0, redirects: 'return', maxBytes: MAX_DOWNLOAD_BYTES, ...(consume === undefined ? {} : { consume }) }, signal);
    if (isSuccess(response)) return response;
    if (hop === 0 && response.status === 404) return null;
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined) throw apiError(response);
    const next = new URL(location, url);
    const downgrade = downgradeError(response, url, next);
    if (downgrade !== null) throw downgrade;
    url = next.href;
  }
  throw new Error(`GET ${new URL(downloadUrl).pathname} failed: more than ${MAX_REDIRECTS} redirects`);
}

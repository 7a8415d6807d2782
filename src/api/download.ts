import { apiError, isSuccess } from './responses.js';
import type { Transport } from './transport.js';

const MAX_REDIRECTS = 5;

/**
 * GETs `links.download` without following redirects, then the `Location` it names (absolute or
 * relative) WITHOUT the token: it is a temporary URL, possibly on another host. Returns the raw text,
 * or null when `links.download` itself answers 404: the service's way of saying no code was uploaded yet.
 */
export async function fetchDownload(transport: Transport, secret: string, downloadUrl: string): Promise<string | null> {
  let url = downloadUrl;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await transport.send({ method: 'GET', url, auth: hop === 0 });
    if (isSuccess(response)) return response.text;
    if (hop === 0 && response.status === 404) return null;
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined) throw apiError(response, secret);
    url = new URL(location, url).href;
  }
  throw new Error(`GET ${new URL(downloadUrl).pathname} failed: more than ${MAX_REDIRECTS} redirects`);
}

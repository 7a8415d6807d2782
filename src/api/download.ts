import { apiError, isSuccess } from './responses.js';
import type { Transport } from './transport.js';

const MAX_REDIRECTS = 5;

/**
 * GETs `links.download` without following redirects, then the `Location` it names (absolute or
 * relative) WITHOUT the token: it is a temporary URL, possibly on another host. Returns the raw text.
 */
export async function fetchDownload(transport: Transport, secret: string, downloadUrl: string): Promise<string> {
  let url = downloadUrl;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await transport.send({ method: 'GET', url, auth: hop === 0 });
    if (isSuccess(response)) return response.text;
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined) throw apiError(response, secret);
    url = new URL(location, url).href;
  }
  throw new Error(`GET ${new URL(downloadUrl).pathname} failed: more than ${MAX_REDIRECTS} redirects`);
}

/**
 * The one rule for what the tool reads back from its state dir: a file counts only when this tool wrote it, for this
 * API and this organization (or source). Every document the state dir holds (the code cache with the files of set
 * contents, the evidence cache, a source's pass history, the suspended sources) is sealed when written: its first line
 * is an HMAC-SHA256 over the document's purpose, its scope and its text, keyed with a key derived from the API token
 * and the API URL. A repo cannot know the token, so a file a pull request commits into a state dir (or that a cache
 * restores from elsewhere) never matches; nor does a file written for another API, organization or purpose, or by an
 * older version. What a reader does with a document that fails its check is the reader's: the caches and the history
 * take it as a miss (nothing of it is used), never as an error.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed document is for, and whose: its kind of file and the organization (or source) it belongs to. */
export interface SealScope {
  purpose: 'code cache' | 'evidence cache' | 'pass history' | 'suspended sources';
  /** The organization of a cache, the source of a history, '' for a file of the whole state dir. */
  owner: string;
}

export interface StateSeal {
  /** `text` with its seal line first, as it is written to the state dir. */
  seal(scope: SealScope, text: string): string;
  /** The text of a file this tool sealed for `scope`, or null: no seal line, another key, scope or text. */
  open(scope: SealScope, file: string): string | null;
}

const LABEL = 'policy-pool-sync state seal v1';
const PREFIX = `${LABEL} hmac-sha256 `;
const HEX = /^[0-9a-f]{64}$/;

/**
 * The seal of a state dir used with the API at `apiUrl` through `token`. The key is HMAC-SHA256(token, label, URL):
 * another token (a rotated one) or another API gives another key, and every file is a miss until it is written again.
 */
export function stateSeal(token: string, apiUrl: string): StateSeal {
  return sealWithKey(createHmac('sha256', token).update(`${LABEL}\0${apiUrl.replace(/\/+$/, '')}`).digest());
}

/** A seal whose key lives in this process only: nothing written by another process is ever read back. */
export function processSeal(): StateSeal {
  return sealWithKey(randomBytes(32));
}

/**
 * The text of a file whether or not its seal matches (its seal line dropped, when it has one): for the one reader that
 * must fail closed, the suspended sources, which keeps every source such a file names suspended rather than resume them.
 */
export function withoutSeal(file: string): string {
  return file.startsWith(PREFIX) && file.includes('\n') ? file.slice(file.indexOf('\n') + 1) : file;
}

function sealWithKey(key: Buffer): StateSeal {
  const mac = (scope: SealScope, text: string) =>
    createHmac('sha256', key).update(`${scope.purpose}\0${scope.owner}\0`).update(text, 'utf8').digest();
  return {
    seal: (scope, text) => `${PREFIX}${mac(scope, text).toString('hex')}\n${text}`,
    open(scope, file) {
      const end = file.indexOf('\n');
      if (end < 0 || !file.startsWith(PREFIX)) return null;
      const written = file.slice(PREFIX.length, end);
      if (!HEX.test(written)) return null;
      const text = file.slice(end + 1);
      return timingSafeEqual(Buffer.from(written, 'hex'), mac(scope, text)) ? text : null;
    },
  };
}

/**
 * The API's word for the native kind (`native` in the document, `sentinel` on the hosted service): given by
 * `api.native-kind`, or learned from the service. It is learned from the kind words of the policies a list or a read
 * returns, and, in an organization that holds none yet, from the 422 a create gets when its word is refused
 * (`kind must be one of sentinel, opa, tfpolicy`): a refused create wrote nothing, so it is sent again in the word the
 * service named.
 */
import type { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { NativeKindName } from '../model.js';

const WORDS: readonly NativeKindName[] = ['native', 'sentinel'];
/** The service's message when a kind is refused; the allowed words follow. */
const ALLOWED = /kind must be one of ([a-z_-]+(?:\s*,\s*(?:or\s+)?[a-z_-]+)*)/i;

export class NativeKind {
  private current: NativeKindName;
  private readonly given: boolean;
  private said = false;

  /** `given`: `api.native-kind` (`--native-kind`), which always wins; null to learn it (the document's `native` until then). */
  constructor(given: NativeKindName | null, private readonly logger: Logger) {
    this.current = given ?? 'native';
    this.given = given !== null;
  }

  get word(): NativeKindName {
    return this.current;
  }

  /** A kind word the API sent for one of its policies. */
  observe(word: unknown): void {
    if (this.given || word === this.current || !WORDS.includes(word as NativeKindName)) return;
    this.current = word as NativeKindName;
    this.logger.info({ nativeKind: this.current }, 'the API calls the native kind by the word its policies carry; using it');
  }

  /**
   * For a create sent with `sent` and refused with 422: the native word to send again when the refusal names the
   * allowed kinds, leaves `sent` out and takes the other one (creates in flight together each get the answer); null
   * otherwise, and always when the word was given. Says so once per client.
   */
  retryWord(error: ApiError, sent: NativeKindName): NativeKindName | null {
    const other = this.otherWord(error, sent);
    if (other === null || this.given) return null;
    this.current = other;
    if (!this.said) {
      this.said = true;
      this.logger.warn({ ...error.request, refused: sent, nativeKind: other },
        `the API refused the native kind's word and named "${other}": nothing was written; sending again as ${other} (set api.native-kind or --native-kind to choose it)`);
    }
    return other;
  }

  /** What a refused create's message adds when the word was given and the service named the other one. */
  hint(error: ApiError): string | null {
    const other = this.otherWord(error, this.current);
    if (other === null || !this.given) return null;
    return `the API calls the native kind "${other}": set api.native-kind: ${other} (--native-kind ${other}), or leave it unset to learn it from the API`;
  }

  /** The word other than `sent` when the refusal's list of allowed kinds leaves `sent` out and holds the other. */
  private otherWord(error: ApiError, sent: NativeKindName): NativeKindName | null {
    if (error.status !== 422) return null;
    const match = ALLOWED.exec(error.detail ?? error.message);
    if (match === null) return null;
    const allowed = (match[1] ?? '').split(/\s*,\s*(?:or\s+)?/).map((w) => w.toLowerCase());
    if (allowed.includes(sent)) return null;
    return WORDS.find((w) => w !== sent && allowed.includes(w)) ?? null;
  }
}

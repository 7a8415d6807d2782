/**
 * The API's word for the native kind (`native` in the document, `sentinel` on the hosted service): given by
 * `api.native-kind`, or learned from the service. It is learned from the kind words of the policies and policy sets a
 * list or a read returns, and, in an organization that holds none yet, from the 422 a create gets when its word is
 * refused: any 422 that names the kind field, by its pointer (`/data/attributes/kind`) or in its text, whatever the
 * wording (the hosted service most likely says `Kind is not included in the list`; a list of allowed words, as in
 * `kind must be one of sentinel, opa, tfpolicy`, is read when there is one). A refused create wrote nothing, so it is
 * sent again in the other word, once.
 */
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { NativeKindName } from '../model.js';
import { withNote } from './request-parts.js';

const WORDS: readonly NativeKindName[] = ['native', 'sentinel'];
/** A refusal that lists the allowed kinds: `kind must be one of sentinel, opa, tfpolicy`. */
const ALLOWED = /kind must be one of ([a-z_-]+(?:\s*,\s*(?:or\s+)?[a-z_-]+)*)/i;
/** The kind field named in a message's text. */
const NAMES_KIND = /\bkind\b/i;
const KIND_POINTER = '/data/attributes/kind';

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

  /** A kind word the API sent for one of its policies or policy sets (`tfpolicy` and other kinds teach nothing). */
  observe(word: unknown): void {
    if (this.given || word === this.current || !WORDS.includes(word as NativeKindName)) return;
    this.current = word as NativeKindName;
    this.logger.info({ nativeKind: this.current }, 'the API calls the native kind by the word its policies or policy sets carry; using it');
  }

  /** Back to `word` after a create sent again in the other word was refused for its kind too: neither was learned. */
  restore(word: NativeKindName): void {
    if (!this.given) this.current = word;
  }

  /**
   * A native create (a policy or a policy set): `send` in the current word; refused with a 422 naming the kind, sent
   * again once in the other word (nothing was written). Refused for its kind in that word too, neither word was
   * learned: the word sent first goes back, and the first refusal is what the caller sees.
   */
  async create<T>(send: () => Promise<T>): Promise<T> {
    const sent = this.word;
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (this.retryWord(error, sent) === null) {
        const hint = this.hint(error);
        throw hint === null ? error : withNote(error, hint);
      }
      try {
        return await send();
      } catch (again) {
        if (!(again instanceof ApiError) || !NativeKind.refusesKind(again)) throw again;
        this.restore(sent);
        throw error;
      }
    }
  }

  /**
   * Whether a refused create's error names the kind field, whatever the wording: by its pointer, or, when the answer
   * points at no field, by `kind` in its text (an answer pointing at other fields only is about them).
   */
  static refusesKind(error: ApiError): boolean {
    if (error.status !== 422) return false;
    if (error.pointers.length > 0) return error.pointers.includes(KIND_POINTER);
    return NAMES_KIND.test(error.detail ?? '');
  }

  /**
   * For a create sent with `sent` and refused with a 422 naming the kind field: the other native word, to send again
   * (creates in flight together each get the answer); null when the refusal lists allowed kinds that hold `sent`, when
   * it is about something else, and always when the word was given. Says so once per client.
   */
  retryWord(error: ApiError, sent: NativeKindName): NativeKindName | null {
    const other = this.otherWord(error, sent);
    if (other === null || this.given) return null;
    this.current = other;
    if (!this.said) {
      this.said = true;
      this.logger.warn({ ...error.request, refused: sent, nativeKind: other },
        `the API refused the native kind's word "${sent}": nothing was written; sending again as ${other} (set api.native-kind or --native-kind to choose it)`);
    }
    return other;
  }

  /** What a refused create's message adds when the word was given and the service refused it for the other one. */
  hint(error: ApiError): string | null {
    const other = this.otherWord(error, this.current);
    if (other === null || !this.given) return null;
    return `the API refused the kind "${this.current}" and most likely calls the native kind "${other}": set api.native-kind: ${other} (--native-kind ${other}), or leave it unset to learn it from the API`;
  }

  /**
   * The word other than `sent` when the error refuses the kind field: when it lists the allowed kinds, only if that list
   * leaves `sent` out and holds the other; otherwise the other of the two words.
   */
  private otherWord(error: ApiError, sent: NativeKindName): NativeKindName | null {
    if (!NativeKind.refusesKind(error)) return null;
    const other = WORDS.find((w) => w !== sent) ?? null;
    const match = ALLOWED.exec(error.detail ?? '');
    if (match === null) return other;
    const allowed = (match[1] ?? '').split(/\s*,\s*(?:or\s+)?/).map((w) => w.toLowerCase());
    if (allowed.includes(sent)) return null;
    return other !== null && allowed.includes(other) ? other : null;
  }
}

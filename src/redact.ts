/**
 * The one redactor. It is built once, at start-up, from every secret the process knows (`knownSecrets` in
 * config/secrets.ts: the API token, git credentials, the control, status and webhook tokens, notification URLs and
 * secrets, proxy credentials), and applied where text leaves the process: log lines, stdout and stderr, saved plans,
 * `/status`, history and notifications. Besides the secrets it was given, it hides what looks like a credential in any
 * text: a URL's user part (`https://user:p@ss@host/` → `https://***@host/`), a query value whose name says token, key,
 * secret, password or signature, and the value of an `Authorization:` header.
 */

/** Text with every secret and credential-looking part replaced by `***`. */
export type Redact = (text: string) => string;

const HIDDEN = '***';
/** Shorter secrets would hide ordinary words; a token that short is refused at start-up anyway. */
const MIN_SECRET = 4;

/**
 * A URL's user part: up to the last `@` before the host (a password may hold `@`), never across a quote, a slash or
 * white space, so that two URLs in one JSON text stay two.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s"'<>\\`]*@/gi;
/**
 * A query value whose name says it is a credential (`?private_token=`, `&X-Amz-Signature=`, `?api_key=`, `?sig=`), up to
 * what ends it in a URL or in a sentence (a `:` too; the known secrets are hidden whole before).
 */
const QUERY_CREDENTIAL = /([?&;][\w.-]*?(?:token|secret|passw(?:or)?d|pwd|key|signature|sig|auth|credential)[\w.-]*=)[^&\s"'<>#\\`:;,)]+/gi;
/** The value of an `Authorization` header written out as text. */
const AUTHORIZATION = /(authorization"?\s*[:=]\s*"?(?:basic|bearer|token)\s+)[^\s"',]+/gi;

/** Log fields whose value is a secret whatever it is; the logger hides them before the line is written. */
export const SECRET_LOG_FIELDS = ['token', 'apiToken', 'authorization', 'headers.authorization', 'webhookSecret', '*.token', '*.authorization'];

/**
 * Secrets learned after start-up (a policy set's sensitive parameters, read with the declared repo). The repo chooses
 * which values these are (within what the operator allows), so they are hidden only where they can appear: the text
 * of the API's answers and of the requests the API client turns into messages (the redactors made with
 * `{ learned: true }`), from the moment they are learned. Elsewhere (the plan, logs, /status) no such value is ever
 * written, and a value there would let a pull request blank the words a reviewer reads (`prune`, a policy's name).
 */
const learned = new Set<string>();
let learnedForms: string[] = [];

export function learnSecrets(secrets: Iterable<string>): void {
  const before = learned.size;
  for (const secret of secrets) learned.add(secret);
  if (learned.size !== before) learnedForms = formsOf(learned);
}

/** Each secret as written, URL-encoded and inside a JSON string, longest first. */
function formsOf(secrets: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * The redactor of `secrets` (each also as it appears URL-encoded and inside a JSON string), and with `learned` of
 * those learned (`learnSecrets`) too.
 */
export function createRedactor(secrets: Iterable<string>, options: { learned?: boolean } = {}): Redact {
  const known = formsOf(secrets);
  const withLearned = options.learned === true;
  return (text) => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(HIDDEN);
    if (withLearned) for (const secret of learnedForms) if (out.includes(secret)) out = out.split(secret).join(HIDDEN);
    return out.replace(USERINFO, `$1${HIDDEN}@`).replace(QUERY_CREDENTIAL, `$1${HIDDEN}`).replace(AUTHORIZATION, `$1${HIDDEN}`);
  };
}

/**
 * The secrets a URL holds: its user name and password (as written and decoded; a user name alone is a token, beside
 * a password it is only a name), their Basic header form, and its query values.
 */
export function secretsInUrl(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const user = decode(url.username);
  const password = decode(url.password);
  const secrets = [...url.searchParams.values()];
  if (password !== '') secrets.push(password, url.password);
  else if (user !== '') secrets.push(user, url.username);
  if (user !== '' || password !== '') secrets.push(Buffer.from(`${user}:${password}`).toString('base64'));
  return secrets;
}

/**
 * A URL as a file that outlives the run keeps it (a saved plan): without its user part, which git or the API get from
 * the applying side, and with its secrets (credential-looking query values among them) as `***`.
 */
export function savedUrl(url: string): string {
  return createRedactor(secretsInUrl(url))(url).replace(/^([a-z][a-z0-9+.-]*:\/\/)\*\*\*@/i, '$1');
}

/** A value (a status, a history record) with every string in it redacted, as its JSON shows it. */
export function redactValue<T>(value: T, redact: Redact): T {
  return JSON.parse(redact(JSON.stringify(value))) as T;
}

/**
 * An error's message, redacted of credential-looking parts only (for text made before the redactor exists). The check is
 * written out, not errors.ts's errorMessage: a module of the base layer imports no other.
 */
export function safeErrorMessage(error: unknown): string {
  return createRedactor([])(error instanceof Error ? error.message : String(error));
}

/** Text percent-decoded (a URL's user name or password, a path segment, a query), or as written when it does not decode: the one guarded `decodeURIComponent`. */
export function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

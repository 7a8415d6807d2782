/**
 * Secrets out of text, at the boundaries where outside text enters messages: the API transport (a request's path, an
 * error response's body, a failure's description) and the sources (git URLs and errors). Nothing past them sees a secret.
 */

/** Replaces the secret (the API token) wherever it appears; a very short secret would match ordinary words, and is left. */
export function scrub(text: string, secret: string): string {
  return secret.length < 6 ? text : text.split(secret).join('[redacted]');
}

/** Replaces credentials in URLs (`https://user:token@host/...` → `https://***@host/...`) anywhere in a text. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

/** An error's message with credentials removed, for logs and /status. */
export function safeErrorMessage(error: unknown): string {
  return redactCredentials(error instanceof Error ? error.message : String(error));
}

/** Replaces credentials in URLs (`https://user:token@host/...` → `https://***@host/...`) anywhere in a text. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

/** An error's message with credentials removed, for logs and /status. */
export function safeErrorMessage(error: unknown): string {
  return redactCredentials(error instanceof Error ? error.message : String(error));
}

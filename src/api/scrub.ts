/** Replaces the secret (the API token) wherever it appears; a very short secret would match ordinary words, and is left. */
export function scrub(text: string, secret: string): string {
  return secret.length < 6 ? text : text.split(secret).join('[redacted]');
}

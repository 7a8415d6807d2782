/**
 * CRLF and lone CR become LF. Code and descriptions typed into the service's web UI can come back
 * with CRLF, so a line-end-only difference is never drift and is never shown in a diff.
 */
export function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

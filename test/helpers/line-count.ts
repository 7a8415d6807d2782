/**
 * Lines as a plan counts them, counted over the whole bytes at once: CRLF, CR and LF each end one, and a last line
 * without an ending counts too. The reference the chunked scan of declared code is held against.
 */
export function lineCount(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let ends = 0;
  for (let at = 0; at < bytes.length; at += 1) {
    const byte = bytes[at];
    if (byte === 0x0a) ends += 1;
    else if (byte === 0x0d) {
      ends += 1;
      if (bytes[at + 1] === 0x0a) at += 1;
    }
  }
  const last = bytes[bytes.length - 1];
  return last === 0x0a || last === 0x0d ? ends : ends + 1;
}

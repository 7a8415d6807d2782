/**
 * A `tar.gz` of files given by path, for the emulator's ingestion of policy set versions: ustar headers, one block per
 * file, fixed times and modes. `links` adds symbolic links (path → target).
 */
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

function header(path: string, size: number, flag: string, target = ''): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (text: string, at: number, length: number): void => void block.write(text.slice(0, length), at, 'utf8');
  put(path, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put('        ', 148, 8);
  put(flag, 156, 1);
  put(target, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

export function tarGz(files: Record<string, string | Buffer>, links: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [];
  for (const [path, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    parts.push(header(path, data.length, '0'), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  for (const [path, target] of Object.entries(links)) parts.push(header(path, 0, '2', target));
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}

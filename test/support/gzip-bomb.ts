// A gzip bomb built as a stream (zeros in 1 MiB chunks through createGzip), so making one never holds its
// expansion in memory: 1 GiB of zeros at level 9 is ~1,043,000 bytes, small enough for a ConfigMap.
import { createGzip } from 'node:zlib';

export async function gzipBomb(expandedBytes: number): Promise<Uint8Array> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = expandedBytes; left > 0; left -= zeros.length) {
    const chunk = left >= zeros.length ? zeros : zeros.subarray(0, left);
    if (!gzip.write(chunk)) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

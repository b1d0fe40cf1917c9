import { request } from 'node:https';

/**
 * GET from wasm-ccm's self-signed loopback server (started by the test or demo itself: nothing to verify against),
 * optionally with a bearer token.
 */
export function httpsGetInsecure(
  url: string,
  options: { token?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const req = request(url, { rejectUnauthorized: false, headers, timeout: options.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// GET over HTTPS with a bearer token from a server with a self-signed certificate (the CCM's own serving
// certificate when none is configured): the benchmark only reads its metrics, so the certificate is not verified.
import { request } from 'node:https';

export function httpsGetText(url: string, token: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(body);
          else reject(new Error(`GET ${url}: ${res.statusCode} ${body.slice(0, 200)}`));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

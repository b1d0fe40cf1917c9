// GET over HTTPS with a bearer token from a server with a self-signed certificate (the CCM's own serving
// certificate when none is configured): the benchmark only reads its metrics, so the certificate is not verified.
import { httpsGetInsecure } from '../../lab/process/index.ts';

/** The body of a 200 answer; anything else rejects with the status and the start of the body. */
export async function httpsGetText(url: string, token: string, timeoutMs = 30_000): Promise<string> {
  const res = await httpsGetInsecure(url, { token, timeoutMs });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.body.slice(0, 200)}`);
  return res.body;
}

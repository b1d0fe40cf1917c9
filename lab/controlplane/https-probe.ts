import { request } from 'node:https';

export interface ProbeResult {
  status: number;
  body: string;
}

/** One HTTPS GET with a pinned CA and a bearer token; resolves with whatever status came back. */
export function httpsGet(url: string, ca: string | undefined, token: string, timeoutMs = 2000): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        ca,
        rejectUnauthorized: ca !== undefined,
        headers: { authorization: `Bearer ${token}` },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Thrown from a `waitFor` check to stop waiting at once (the thing waited for can no longer happen). */
export class GiveUp extends Error {}

/** Polls `check` until it returns true; throws with `describe()` if `timeoutMs` passes first or `check` gives up. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  describe: () => string = () => '',
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      if (err instanceof GiveUp) {
        throw new Error(`gave up waiting for ${what}: ${err.message}\n${describe()}`, { cause: err });
      }
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const detail = describe();
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}${detail ? `\n${detail}` : ''}`,
  );
}

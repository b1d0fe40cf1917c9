// The two clients under comparison, each sending a case's requests at once over at most one keep-alive connection
// (so that they queue): Http1Pool, and node:http's own client (llhttp) with a keep-alive Agent.
import http from 'node:http';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';
import { MAX_HEAD_BYTES } from '../../../host/src/net/http1/response-parser.ts';
import type { FuzzCase } from './cases.ts';

export type Outcome =
  | { ok: true; status: number; headers: [string, string[]][]; body: Buffer }
  | { ok: false; error: string; reason?: string };

const TIMEOUT_MS = 3_000;

/** Names lower-cased, values grouped by name in order, names sorted: a form both clients' headers reduce to. */
function normalize(pairs: Iterable<[string, string]>): [string, string[]][] {
  const map = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    const values = map.get(lower);
    if (values) values.push(value);
    else map.set(lower, [value]);
  }
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function runOurs(origin: { host: string; port: number }, c: FuzzCase): Promise<Outcome[]> {
  const pool = new Http1Pool(`http://${origin.host}:${origin.port}`, { connections: 1 });
  try {
    const settled = await Promise.allSettled(
      c.requests.map((r, k) =>
        pool.exchange({
          method: r.method,
          path: `/${c.id}/${k}`,
          headers: { 'x-client': 'ours' },
          headersTimeoutMs: TIMEOUT_MS,
          bodyTimeoutMs: TIMEOUT_MS,
        }),
      ),
    );
    return settled.map((s): Outcome => {
      if (s.status === 'rejected') {
        const err = s.reason as Error & { code?: string; reason?: string };
        return { ok: false, error: err.code ?? err.message, ...(err.reason ? { reason: err.reason } : {}) };
      }
      const pairs: [string, string][] = [];
      for (const [name, value] of Object.entries(s.value.headers)) {
        for (const v of Array.isArray(value) ? value : [value ?? '']) pairs.push([name, v]);
      }
      return { ok: true, status: s.value.statusCode, headers: normalize(pairs), body: Buffer.concat(s.value.chunks) };
    });
  } finally {
    pool.destroy();
  }
}

export async function runNode(origin: { host: string; port: number }, c: FuzzCase): Promise<Outcome[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await Promise.all(c.requests.map((r, k) => nodeRequest(agent, origin, r.method, `/${c.id}/${k}`)));
  } finally {
    agent.destroy();
  }
}

function nodeRequest(
  agent: http.Agent,
  origin: { host: string; port: number },
  method: string,
  path: string,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      resolve(o);
    };
    const fail = (err: Error & { code?: string }): void => settle({ ok: false, error: err.code ?? err.message });
    const req = http.request(
      { ...origin, method, path, agent, headers: { 'x-client': 'node' }, maxHeaderSize: MAX_HEAD_BYTES },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('aborted')));
        res.on('end', () => {
          if (!res.complete) return fail(new Error('incomplete'));
          const pairs: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            pairs.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
          }
          settle({ ok: true, status: res.statusCode ?? 0, headers: normalize(pairs), body: Buffer.concat(chunks) });
        });
      },
    );
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', fail);
    req.end();
  });
}

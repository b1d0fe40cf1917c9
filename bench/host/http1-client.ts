// CPU of the HTTP/1.1 client per request, on the thread that makes it: one request at a time over loopback TLS (as a
// rate-limited controller sends them) to an HTTPS server in a worker thread of this process, so that only the
// client's work is counted. Scenarios: GET with a 3 KiB JSON answer framed by Content-Length (a Node), the same
// answer chunked, and a PATCH with a small body. `--a` and `--b` take two builds' pool.ts (e.g. an older
// checkout's), run interleaved round by round; each figure is the median over the rounds.
//
// Usage: node bench/host/http1-client.ts [--requests=2000] [--rounds=7] [--a=host/src/net/http1/pool.ts] [--b=<path>]
//        [--out=bench/results/http1-client.json]
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Http1Pool } from '../../host/src/net/http1/pool.ts';
import { selfSignedCertificate } from '../../host/src/server/tls.ts';
import { median, formatTable } from '../../lab/measure/index.ts';
import { ownThreadCpuUs } from '../lib/thread-cpu.ts';

const NODE_JSON = JSON.stringify({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name: 'node-1',
    labels: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`l${i}`, 'v'.repeat(40)])),
  },
  status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
}).padEnd(3072, ' ');

function serve(cert: { cert: string; key: string }): void {
  const server = https.createServer(cert, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('audit-id', '2f1c4c4e-3b4b-4d5e-9a6f-7b8c9d0e1f2a');
      if (req.url === '/chunked') {
        res.write(NODE_JSON.slice(0, 1500));
        res.end(NODE_JSON.slice(1500));
      } else res.end(req.method === 'PATCH' ? `{"patched":${body.length}}` : NODE_JSON);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => parentPort?.postMessage((server.address() as AddressInfo).port));
}

interface Scenario {
  name: string;
  request: Parameters<Http1Pool['exchange']>[0];
}

const SCENARIOS: Scenario[] = [
  { name: 'GET, Content-Length', request: { method: 'GET', path: '/node', headers: { accept: 'application/json' } } },
  { name: 'GET, chunked', request: { method: 'GET', path: '/chunked', headers: { accept: 'application/json' } } },
  {
    name: 'PATCH',
    request: {
      method: 'PATCH',
      path: '/node',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"metadata":{"labels":{"a":"b"}}}',
    },
  },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '7' },
      a: { type: 'string', default: 'host/src/net/http1/pool.ts' },
      b: { type: 'string' },
      out: { type: 'string', default: new URL('../results/http1-client.json', import.meta.url).pathname },
    },
  });
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  const builds = [values.a, ...(values.b !== undefined ? [values.b] : [])];
  const cert = selfSignedCertificate();
  const worker = new Worker(new URL(import.meta.url), { workerData: cert });
  const port = await new Promise<number>((done) => worker.once('message', done));
  const pools: Http1Pool[] = [];
  for (const path of builds) {
    const { Http1Pool: Pool } = (await import(pathToFileURL(resolve(path)).href)) as {
      Http1Pool: typeof Http1Pool;
    };
    pools.push(new Pool(`https://127.0.0.1:${port}`, { connections: 1, tls: { ca: cert.cert } }));
  }
  const loadBefore = loadavg()[0];
  const samples = builds.map(() => SCENARIOS.map((): number[] => []));
  for (const pool of pools) for (const s of SCENARIOS) await cpuPerRequest(pool, s, 500);
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first.
    const order = round % 2 === 0 ? pools.map((_, i) => i) : pools.map((_, i) => pools.length - 1 - i);
    for (const i of order) {
      for (const [j, s] of SCENARIOS.entries())
        samples[i]?.[j]?.push(await cpuPerRequest(pools[i] as Http1Pool, s, requests));
    }
  }
  const result = SCENARIOS.map((s, j) => ({
    scenario: s.name,
    us_per_request: builds.map((b, i) => ({ build: b, median: round1(median(samples[i]?.[j] ?? [])) })),
  }));
  console.log(
    formatTable(
      ['scenario', ...builds.map((b) => `${b} (us CPU)`)],
      result.map((r) => [r.scenario, ...r.us_per_request.map((u) => String(u.median))]),
    ),
  );
  writeFileSync(
    values.out,
    `${JSON.stringify(
      { requests, rounds, result, node: process.version, load_average_1m: { before: loadBefore, after: loadavg()[0] } },
      null,
      2,
    )}\n`,
  );
  for (const pool of pools) pool.destroy();
  await worker.terminate();
}

/** Microseconds of this thread's CPU per request, over `n` requests one after another. */
async function cpuPerRequest(pool: Http1Pool, scenario: Scenario, n: number): Promise<number> {
  const before = ownThreadCpuUs();
  for (let i = 0; i < n; i++) {
    const r = await pool.exchange(scenario.request);
    if (r.statusCode !== 200) throw new Error(`${scenario.name}: status ${r.statusCode}`);
  }
  return (ownThreadCpuUs() - before) / n;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

if (!isMainThread) {
  serve(workerData as { cert: string; key: string });
} else {
  await main();
}

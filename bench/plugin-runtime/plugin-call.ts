// Cost of a plugin call: the isolated runtime (instances in worker threads, a SharedArrayBuffer channel) beside stock Extism
// in foreground and runInWorker modes, for a no-op and for echoing 1 KiB and 64 KiB; and the overhead of a
// brokered HTTP request (plugin -> host -> loopback server -> plugin) over the same request made directly.
// Writes bench/results/plugin-call.json and prints a table.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { loadPlugin } from '../../host/src/plugin/index.ts';
import { buildFixture } from '../../lab/plugins/index.ts';
import { extismCaller, type RawCaller } from '../lib/extism-modes.ts';
import { percentile, sample, summarize, type Percentiles, formatTable } from '../../lab/measure/index.ts';

const RESULTS = new URL('../results/plugin-call.json', import.meta.url);
const quick = process.argv.includes('--quick');
const scale = quick ? 0.1 : 1;

// Echo reads its input with ccm_input_read (the SDK's way since ABI 1.1); the '-kernel' payloads read it through
// Extism's kernel 8 bytes per host call (as-pdk, the SDK's way before), which is also what extismWorker runs for
// every echo: its host functions cannot reach the guest's memory (see lib/extism-modes.ts).
type Payload = 'noop' | '1KiB' | '64KiB' | '1KiB-kernel' | '64KiB-kernel';
const PAYLOADS: Array<{ name: Payload; exportName: string; input: Uint8Array; iterations: number }> = [
  { name: 'noop', exportName: 'bench_noop', input: new Uint8Array(0), iterations: 10_000 },
  { name: '1KiB', exportName: 'bench_echo', input: pattern(1024), iterations: 10_000 },
  { name: '64KiB', exportName: 'bench_echo', input: pattern(64 * 1024), iterations: 1_000 },
  { name: '1KiB-kernel', exportName: 'bench_echo_kernel', input: pattern(1024), iterations: 10_000 },
  { name: '64KiB-kernel', exportName: 'bench_echo_kernel', input: pattern(64 * 1024), iterations: 1_000 },
];

function exportFor(mode: string, exportName: string): string {
  return mode === 'extismWorker' && exportName === 'bench_echo' ? 'bench_echo_kernel' : exportName;
}

function pattern(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => 32 + (i % 90));
}

type Mode = 'isolated' | 'extismForeground' | 'extismWorker';
const ROUNDS = 3;

/**
 * Measures every mode and payload in ROUNDS interleaved rounds and merges each mode's samples, so load from other
 * processes that comes and goes during the run affects all modes alike.
 */
async function measureModes(callers: Record<Mode, RawCaller>): Promise<Record<Mode, Record<Payload, Percentiles>>> {
  const samples = new Map<string, number[]>();
  for (const [mode, caller] of Object.entries(callers)) {
    for (const payload of PAYLOADS) {
      const check = await caller.call(exportFor(mode, payload.exportName), payload.input);
      if (payload.name !== 'noop' && Buffer.compare(Buffer.from(check), Buffer.from(payload.input)) !== 0) {
        throw new Error(`${mode} ${payload.name}: echo came back different`);
      }
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, caller] of Object.entries(callers)) {
      const slow = mode === 'extismWorker';
      for (const payload of PAYLOADS) {
        const iterations = Math.max(50, Math.round((payload.iterations * scale * (slow ? 0.2 : 1)) / ROUNDS));
        const exportName = exportFor(mode, payload.exportName);
        const timed = await sample(
          () => caller.call(exportName, payload.input),
          iterations,
          Math.min(1000, iterations),
        );
        const key = `${mode}/${payload.name}`;
        samples.set(key, [...(samples.get(key) ?? []), ...timed]);
      }
    }
  }
  const result = {} as Record<Mode, Record<Payload, Percentiles>>;
  for (const mode of Object.keys(callers) as Mode[]) {
    result[mode] = {} as Record<Payload, Percentiles>;
    for (const payload of PAYLOADS)
      result[mode][payload.name] = summarize(samples.get(`${mode}/${payload.name}`) ?? []);
  }
  return result;
}

async function startServer(): Promise<{ server: http.Server; url: string }> {
  const body = JSON.stringify({ id: 'i-0123456789', state: 'running', zone: 'zone-a' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/instances/i-0123456789` };
}

function directGet(agent: http.Agent, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  // The machine may be shared: the 1-minute load average before and after says how much else was running.
  const loadBefore = loadavg()[0];
  const wasm = await buildFixture('echo', true);
  const module = await WebAssembly.compile(wasm);

  const { server, url } = await startServer();
  const host = new URL(url).host;
  const plugin = await loadPlugin({
    source: { bytes: wasm, name: 'echo.wasm' },
    allowedHosts: [host],
    pool: { size: 1 },
  });
  const isolatedCaller: RawCaller = { call: (e, i) => plugin.callExport(e, i), close: async () => {} };

  const foreground = await extismCaller(module, false);
  const worker = await extismCaller(module, true);
  const { isolated, extismForeground, extismWorker } = await measureModes({
    isolated: isolatedCaller,
    extismForeground: foreground,
    extismWorker: worker,
  });
  await foreground.close();
  await worker.close();

  // Brokered HTTP: alternate direct and brokered requests so both see the same machine state. Overhead is the
  // difference of the percentiles (brokered minus direct).
  const agent = new http.Agent({ keepAlive: true });
  const encodedUrl = new TextEncoder().encode(url);
  const calls = Math.round(10_000 * scale);
  for (let i = 0; i < 500; i++) {
    await directGet(agent, url);
    await plugin.callExport('bench_http', encodedUrl);
  }
  const direct: number[] = [];
  const brokered: number[] = [];
  for (let i = 0; i < calls; i++) {
    let start = process.hrtime.bigint();
    await directGet(agent, url);
    direct.push(Number(process.hrtime.bigint() - start) / 1e6);
    start = process.hrtime.bigint();
    const answer = await plugin.callExport('bench_http', encodedUrl);
    brokered.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (i === 0 && !new TextDecoder().decode(answer).includes('"status":200'))
      throw new Error(`bad answer ${new TextDecoder().decode(answer)}`);
  }
  direct.sort((a, b) => a - b);
  brokered.sort((a, b) => a - b);
  const ms = (v: number): number => Math.round(v * 1000) / 1000;
  const brokeredHttp = {
    overhead_p50_ms: ms(percentile(brokered, 50) - percentile(direct, 50)),
    overhead_p99_ms: ms(percentile(brokered, 99) - percentile(direct, 99)),
    calls,
    direct_p50_ms: ms(percentile(direct, 50)),
    direct_p99_ms: ms(percentile(direct, 99)),
    brokered_p50_ms: ms(percentile(brokered, 50)),
    brokered_p99_ms: ms(percentile(brokered, 99)),
    brokered_max_ms: ms(brokered.at(-1) ?? Number.NaN),
    brokered_over_100ms: brokered.filter((v) => v > 100).length,
  };
  agent.destroy();
  await plugin.close();
  server.close();

  const results = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    loadAverage1m: { before: loadBefore, after: loadavg()[0] },
    quick,
    isolated,
    extismForeground,
    extismWorker,
    brokeredHttp,
  };
  if (!quick) writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);

  const rows: string[][] = [];
  for (const [mode, data] of [
    ['isolated', isolated],
    ['extismForeground', extismForeground],
    ['extismWorker', extismWorker],
  ] as const) {
    for (const payload of PAYLOADS) {
      const p = data[payload.name];
      rows.push([mode, payload.name, p.p50_us.toFixed(1), p.p99_us.toFixed(1), p.max_us.toFixed(0), String(p.samples)]);
    }
  }
  console.log(formatTable(['mode', 'payload', 'p50 us', 'p99 us', 'max us', 'calls'], rows));
  console.log('');
  console.log(
    formatTable(
      ['brokered HTTP', 'p50 ms', 'p99 ms', 'max ms'],
      [
        [
          'direct',
          String(brokeredHttp.direct_p50_ms),
          String(brokeredHttp.direct_p99_ms),
          ms(direct.at(-1) ?? 0).toString(),
        ],
        [
          'through plugin',
          String(brokeredHttp.brokered_p50_ms),
          String(brokeredHttp.brokered_p99_ms),
          String(brokeredHttp.brokered_max_ms),
        ],
        ['overhead', String(brokeredHttp.overhead_p50_ms), String(brokeredHttp.overhead_p99_ms), ''],
      ],
    ),
  );
  console.log(
    `\n${calls} brokered calls; load average ${loadBefore?.toFixed(2)} -> ${results.loadAverage1m.after?.toFixed(2)} ` +
      `on ${results.cpus} CPUs; ${quick ? 'quick run, results not written' : `written to ${RESULTS.pathname}`}`,
  );
}

await main();

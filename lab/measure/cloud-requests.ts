// Cloud API requests a CCM made, read from the cloud's own records: devcloud's per-operation counters and moto's
// request recording. A scenario's requests are the difference between two readings taken around it, so whatever the
// benchmark seeds before or between scenarios is never counted.
import { formatTable } from './table.ts';

/** One operation's counter as devcloud's inventory reports it (its OpCounter, of which only the total matters). */
export interface OpTotal {
  total: number;
}

/** A request as moto's recorder keeps it (header names as sent). */
export interface RecordedCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

// Admin operations are the benchmark's own (seeding, faults); "unmatched" is a request to no route.
const isCloudOp = (op: string): boolean => !op.startsWith('admin') && op !== 'unmatched';

/** Requests per cloud operation between two readings of devcloud's counters; operations that did not move left out. */
export function counterDelta(
  before: Readonly<Record<string, OpTotal>>,
  after: Readonly<Record<string, OpTotal>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, counter] of Object.entries(after)) {
    if (!isCloudOp(op)) continue;
    const delta = counter.total - (before[op]?.total ?? 0);
    if (delta < 0)
      throw new Error(`devcloud counter ${op} went down (${before[op]?.total} -> ${counter.total}): reset?`);
    if (delta > 0) out[op] = delta;
  }
  return out;
}

/** Every cloud request devcloud counted so far. */
export function cloudRequestTotal(counters: Readonly<Record<string, OpTotal>>): number {
  return Object.entries(counters)
    .filter(([op]) => isCloudOp(op))
    .reduce((sum, [, c]) => sum + c.total, 0);
}

export function sumValues(byKey: Readonly<Record<string, number>>): number {
  return Object.values(byKey).reduce((a, b) => a + b, 0);
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/**
 * moto's recorded requests by AWS action, as "ec2:DescribeInstances": the service from the SigV4 credential scope,
 * the action from the form body (the Query protocol) or else the URL's query. Anything else counts as its method and
 * path, so the total always equals the number of requests.
 */
export function awsActions(calls: readonly RecordedCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const call of calls) {
    const url = new URL(call.url, 'http://moto');
    const action = new URLSearchParams(call.body).get('Action') ?? url.searchParams.get('Action');
    const scope = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(header(call.headers, 'authorization') ?? '');
    const key = action ? `${scope?.[1] ?? 'unsigned'}:${action}` : `${call.method} ${url.pathname}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export interface CloudCallsRow {
  scenario: string;
  cloud: string;
  upstream: number;
  wasmCcm: number;
}

/** wasm-ccm's requests over upstream's; null when upstream made none (no ratio to speak of). */
export function requestRatio(upstream: number, wasmCcm: number): number | null {
  if (!Number.isFinite(upstream) || !Number.isFinite(wasmCcm) || upstream < 0 || wasmCcm < 0) {
    throw new Error(`request counts must be non-negative numbers, got upstream ${upstream}, wasm-ccm ${wasmCcm}`);
  }
  return upstream === 0 ? null : wasmCcm / upstream;
}

/** The table bench:cloud-calls prints and bench/README.md quotes: scenario, cloud, both counts and the ratio. */
export function cloudCallsTable(rows: readonly CloudCallsRow[]): string {
  return formatTable(
    ['scenario', 'cloud', 'upstream requests', 'wasm-ccm requests', 'ratio'],
    rows.map((r) => {
      const ratio = requestRatio(r.upstream, r.wasmCcm);
      return [r.scenario, r.cloud, String(r.upstream), String(r.wasmCcm), ratio === null ? '-' : ratio.toFixed(3)];
    }),
  );
}

// Differential fuzzing of the HTTP/1.1 client (host/src/net/http1) against node:http's own client (llhttp):
// generated and mutated response byte streams (valid answers, framing edge cases, several responses per stream,
// queued requests, writes split at random points) from one raw TCP server on 127.0.0.1 to both clients. Per request
// the outcomes must agree (same status, headers and body, or both fail) unless the divergence is on the allow-list
// of deliberate strictness (lab/fuzz/http1/judge.ts, with its RFC section); and no request may receive bytes
// the server sent for another (every answer is tagged with the request it answers).
//
// Usage: npm run fuzz:http1 -- [--cases=10000] [--seed=1] [--concurrency=48] [--examples=20] [--out=bench/results/fuzz-http1.json]
// Exits 1 on an unexplained divergence or a cross-request delivery.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CLOSED_KEEP_ALIVE, STRICTER_ON_PURPOSE } from './judge.ts';
import { runFuzz } from './run.ts';
import { formatTable } from '../../measure/index.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '48' },
    examples: { type: 'string', default: '20' },
    out: { type: 'string', default: new URL('../../../bench/results/fuzz-http1.json', import.meta.url).pathname },
  },
});
const cases = Number(values.cases);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
for (const [name, v] of [
  ['cases', cases],
  ['seed', seed],
  ['concurrency', concurrency],
] as const) {
  if (!Number.isInteger(v) || v < (name === 'seed' ? 0 : 1)) throw new Error(`--${name} must be a whole number`);
}

const loadBefore = loadavg()[0];
const step = Math.max(1, Math.floor(cases / 10));
const report = await runFuzz({
  cases,
  seed,
  concurrency,
  maxExamples: Number(values.examples),
  onProgress: (done) => {
    if (done % step === 0) process.stderr.write(`${done}/${cases} cases\n`);
  },
});

console.log(
  formatTable(
    ['measure', 'value'],
    [
      ['cases', String(report.cases)],
      ['requests', String(report.requests)],
      ['agreements', String(report.agreements)],
      ['unexplained divergences', String(report.divergences)],
      ['allowed divergences', String(report.allowed_divergences)],
      ...Object.entries(report.allowed_by_rule).map(([rule, n]) => [`  allowed: ${rule}`, String(n)]),
      ['cross-request deliveries (Http1Pool)', String(report.cross_request_deliveries)],
      ['cross-request deliveries (node:http)', String(report.node_cross_request_deliveries)],
      ['seed', String(report.seed)],
      ['duration (s)', String(report.duration_s)],
    ],
  ),
);
console.log();
console.log(
  formatTable(
    ['answer kind', 'requests', 'both ok', 'both failed'],
    Object.entries(report.by_kind)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([kind, [n, ok, failed]]) => [kind, String(n), String(ok), String(failed)]),
  ),
);
for (const example of report.examples) console.log('\nDIVERGENCE', JSON.stringify(example, null, 1));

writeFileSync(
  values.out,
  `${JSON.stringify(
    {
      ...report,
      allow_list: [...Object.values(STRICTER_ON_PURPOSE), CLOSED_KEEP_ALIVE],
      node: process.version,
      load_average_1m: { before: loadBefore, after: loadavg()[0] },
      date: new Date().toISOString(),
    },
    null,
    2,
  )}\n`,
);
process.exitCode = report.divergences > 0 || report.cross_request_deliveries > 0 ? 1 : 0;

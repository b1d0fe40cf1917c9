// CPU per log record in each format the CCM can write: the plain JSON lines of createJsonLineLogger, klog's text and
// klog's JSON, each with the caller looked up from V8's call sites (as the CCM runs) and with a fixed caller, so the
// price of the `file:line` in every header is visible, and a V(4) record at -v=0 (what a level that is off costs a
// hot path: a plugin call's or a brokered request's record). Records go to a function that keeps the last line; nothing
// is written to a file.
//   node bench/host/log-format.ts [--records=200000] [--rounds=5]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type LogFormat } from '../../host/src/log/klog.ts';
import { createJsonLineLogger, createKlogLogger, type Logger } from '../../host/src/log/logger.ts';
import { median, formatTable } from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: { records: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const records = Number(values.records);
const rounds = Number(values.rounds);

let last = '';
const sink = (line: string): void => {
  last = line;
};

function klog(format: LogFormat, fixedCaller: boolean): Logger {
  return createKlogLogger({
    format,
    verbosity: 0,
    write: sink,
    ...(fixedCaller ? { caller: () => 'node-controller.js:120' } : {}),
  }).child({ controller: 'cloud-node' });
}

// A level that is off: the same record at V(4) with -v=0, as the plugin runtime writes one per call.
const klogOff = klog('text', false);
const off: Logger = { ...klogOff, info: (m, f) => klogOff.v(4).info(m, f) };

const variants: [string, Logger][] = [
  ['json lines (createJsonLineLogger)', createJsonLineLogger({ write: sink }).child({ controller: 'cloud-node' })],
  ['klog text, caller looked up', klog('text', false)],
  ['klog text, fixed caller', klog('text', true)],
  ['klog json, caller looked up', klog('json', false)],
  ['klog json, fixed caller', klog('json', true)],
  ['klog text, V(4) record at -v=0', off],
];

// The record a node initialization logs: a message and a few short fields.
function oneRound(log: Logger): number {
  const start = process.cpuUsage();
  for (let i = 0; i < records; i++) log.info('Synced node', { node: `node-${i}`, providerID: 'devcloud://i-0123' });
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / records; // ns per record
}

const results: { variant: string; ns_per_record: number }[] = [];
for (const [, log] of variants) oneRound(log); // warm up every variant before measuring any
for (const [name, log] of variants) {
  const samples = Array.from({ length: rounds }, () => oneRound(log));
  results.push({ variant: name, ns_per_record: Math.round(median(samples)) });
}
console.log(
  formatTable(
    ['variant', 'ns per record (median)'],
    results.map((r) => [r.variant, String(r.ns_per_record)]),
  ),
);
console.log(`last line: ${last.trimEnd()}`);
const out = new URL('../results/log-format.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ records, rounds, loadavg: loadavg(), results }, null, 2)}\n`);

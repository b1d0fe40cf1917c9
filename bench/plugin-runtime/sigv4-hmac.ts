// Why the broker's SigV4 signer brings its own SHA-256 (host/src/plugin/broker/sigv4-signer.ts): the CPU of one
// HMAC-SHA256 on node:crypto with the key handed over as a Buffer (what the AWS SDK's Node hash, @smithy/core's Hash,
// does) against the same key as a KeyObject (what the signer does) and a plain SHA-256 for scale. A signature takes
// three HMACs (the signing key comes from a per-day cache) and two hashes.
//
// Usage: node bench/plugin-runtime/sigv4-hmac.ts [--rounds=5] [--out=bench/results/sigv4-hmac.json]
import { createHash, createHmac, createSecretKey } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadNow, writeResults, formatTable } from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    out: { type: 'string', default: new URL('../results/sigv4-hmac.json', import.meta.url).pathname },
  },
});
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: want a positive integer, got ${values.rounds}`);
const CALLS = 20_000;
// A derived signing key is 32 bytes; the message is a string to sign's size.
const key = createHash('sha256').update('signing key').digest();
const message = 'AWS4-HMAC-SHA256\n20261124T000000Z\n20261124/us-east-1/ec2/aws4_request\n'.padEnd(140, '0');

const cases: Array<[string, () => unknown]> = [
  ['HMAC-SHA256, key as a Buffer', () => createHmac('sha256', key).update(message).digest()],
  [
    'HMAC-SHA256, key as a KeyObject made per HMAC',
    () => createHmac('sha256', createSecretKey(key)).update(message).digest(),
  ],
  ['SHA-256', () => createHash('sha256').update(message).digest()],
];

// Best round of CALLS calls, in microseconds of this process's CPU per call.
function usPerCall(run: () => unknown): number {
  for (let i = 0; i < 2000; i++) run();
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) run();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / CALLS);
  }
  return best;
}

const loadBefore = loadNow();
const rows = cases.map(([name, run]) => ({ case: name, cpu_us_per_call: Number(usPerCall(run).toFixed(2)) }));
console.log(
  formatTable(
    ['per call', 'CPU us'],
    rows.map((r) => [r.case, r.cpu_us_per_call.toFixed(2)]),
  ),
);
writeResults(values.out, 'sigv4-hmac', loadBefore, { calls: CALLS, rounds: ROUNDS, rows });

// Every bad value of refusals.cases.ts, refusals-flags.cases.ts and refusals-aws.cases.ts fails `helm template`, and so `helm install` and `helm upgrade`, which render
// the same templates, with a message naming the value and what to write; the good values beside them render, and
// the CCM's own command-line and plugin-configuration parsers accept what they render (materialized as the pod
// would see it), so no check is stricter than the CCM.
import { generateKeyPairSync, createHash, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'vitest';
import { parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { chartTestSetup, DEVCLOUD_MODULE, helmTemplate, materializeArgs } from '../../support/chart-model.ts';
import { awsBadCases, awsGoodCases } from './refusals-aws.cases.ts';
import { flagBadCases, flagGoodCases } from './refusals-flags.cases.ts';
import { badCases, type Fixtures, goodCases, type ValuesCase } from './refusals.cases.ts';

const { scratch } = chartTestSetup('wasm-ccm-chart-refusals-');

function fixtures(): Fixtures {
  const module = DEVCLOUD_MODULE['plugin.module'];
  const bytes = readFileSync(module);
  const write = (name: string, data: string | Buffer) => {
    writeFileSync(join(scratch, name), data);
    return join(scratch, name);
  };
  const ed25519 = generateKeyPairSync('ed25519');
  const signature = sign(null, bytes, ed25519.privateKey).toString('base64');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    module,
    text: write('not-wasm.wasm', 'this is a README, not a plugin\n'),
    component: write('component.wasm', Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00])),
    gzip: write('provider.wasm.gz', gzipSync(bytes)),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    publicKey: ed25519.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    signatureFile: write('provider.wasm.sig', `${signature}\n`),
    signature,
    rsaPublicKey: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

const f = fixtures();
const render = (c: ValuesCase) =>
  helmTemplate({ setFiles: c.files ?? { 'plugin.module': f.module }, setJson: c.values });

// Each case is its own helm process: they run a few at a time (vitest's maxConcurrency), each asserting with its own
// context's expect.
describe('charts/wasm-ccm refuses at helm template what the CCM refuses at start', () => {
  it.concurrent.for([...badCases(f), ...flagBadCases, ...awsBadCases].map((c) => [c.what, c] as const))(
    '%s',
    async ([, c], { expect }) => {
      const result = await render(c);
      expect(result.code, result.stdout.slice(0, 200)).not.toBe(0);
      expect(result.stderr).toContain(c.message);
    },
  );
});

describe('charts/wasm-ccm renders good values beside each check, and the CCM accepts them', () => {
  it.concurrent.for([...goodCases(f), ...flagGoodCases, ...awsGoodCases].map((c) => [c.what, c] as const))(
    '%s',
    async ([, c], { expect }) => {
      const result = await render(c);
      expect(result.code, result.stderr).toBe(0);
      const args = materializeArgs(result.objects, mkdtempSync(join(scratch, 'pod-')));
      expect(() => parseCommandLine(args)).not.toThrow();
    },
  );
});

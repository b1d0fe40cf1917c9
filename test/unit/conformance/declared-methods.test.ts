// The kit names each method of a declared capability that answered NotImplemented (one left to the SDK's default),
// whatever the provider's source looks like: here the SDK's partial test provider, built without the build's check.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseFixture, runConformance } from '../../../host/src/conformance/index.ts';
import { writeOut } from '../../../plugin-sdk/tools/compile.ts';
import { compileFixture } from '../../../lab/plugins/index.ts';
import { type CloudEnv, startCloud } from './support.ts';

let env: CloudEnv;
let wasmPath: string;

beforeAll(async () => {
  env = await startCloud();
  wasmPath = join(env.dir, 'partial.wasm');
  writeOut(wasmPath, await compileFixture('provider'));
}, 120_000);

afterAll(async () => {
  await env?.close();
});

it('fails "no method of a declared capability answers NotImplemented", naming the methods', async () => {
  const report = await runConformance({
    pluginPath: wasmPath,
    cloudConfig: '[Global]\nregion = r\n',
    fixture: parseFixture({ nodes: { running: [{ name: 'node-a' }] } }),
    allowedHosts: [],
  });
  expect(report.results[0]).toMatchObject({ status: 'pass' });
  const check = report.results.find((r) => r.title === 'no method of a declared capability answers NotImplemented');
  expect(check?.status).toBe('fail');
  expect(check?.detail).toBe(
    'declared, but answered NotImplemented: getLoadBalancer (loadBalancer), updateLoadBalancer (loadBalancer), ' +
      'ensureLoadBalancerDeleted (loadBalancer): override each, or do not declare the capability',
  );
});

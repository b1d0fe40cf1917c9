// The provider example of plugin-sdk/README.md ("The provider") is taken from the README as it is, built with the SDK,
// and run through the conformance kit against devcloud: the docs' example must itself pass the kit.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseFixture, runConformance } from '../../../host/src/conformance/index.ts';
import { SDK_DIR, writeOut } from '../../../plugin-sdk/tools/compile.ts';
import { compileAssemblyScript } from '../../../plugin-sdk/tools/compile.ts';
import { type CloudEnv, startCloud } from '../conformance/support.ts';

/** The first TypeScript block under the README's "## The provider" heading. */
export function readmeProviderExample(readme: string): string {
  const section = readme.slice(readme.indexOf('\n## The provider\n'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error('plugin-sdk/README.md has no ts block under "## The provider"');
  return match[1];
}

let env: CloudEnv;
let wasmPath: string;

beforeAll(async () => {
  env = await startCloud();
  const entry = join(env.dir, 'assembly', 'index.ts');
  mkdirSync(join(env.dir, 'assembly'));
  writeOut(entry, readmeProviderExample(readFileSync(join(SDK_DIR, 'README.md'), 'utf8')));
  wasmPath = join(env.dir, 'mycloud.wasm');
  await compileAssemblyScript(entry, { optimize: false, outFile: wasmPath });
}, 120_000);

afterAll(async () => {
  await env?.close();
});

it('passes the conformance kit against devcloud, nodes found by providerID and by name', async () => {
  const { cloud } = env;
  const a = cloud.addInstance({ name: 'node-a' });
  cloud.addInstance({ name: 'node-b', zone: 'dc-east-1b' });
  cloud.stopInstance(cloud.addInstance({ name: 'node-c' }).id);
  const terminated = cloud.addInstance({ name: 'node-t' });
  cloud.terminateInstance(terminated.id);
  const fixture = parseFixture({
    nodes: {
      running: [{ name: 'node-a', providerID: `mycloud://${a.id}` }, { name: 'node-b' }],
      stopped: [{ name: 'node-c' }],
      missing: [{ name: 'ghost' }, { name: 'node-t', providerID: `mycloud://${terminated.id}` }],
    },
  });
  const report = await runConformance({
    pluginPath: wasmPath,
    cloudConfig: env.cloudConfig,
    fixture,
    credentialsFile: env.credentialsFile,
    allowedHosts: [env.host],
  });
  expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
  const byName = report.results.find((r) => r.title.startsWith('instanceMetadata by name'));
  expect(byName?.status).toBe('pass');
  expect(report.results.filter((r) => r.group === 'instancesV2' && r.status === 'pass')).toHaveLength(6);
});

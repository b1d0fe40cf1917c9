// `wasm-ccm plugin test` end to end: the devcloud plugin passes against an embedded devcloud, the deliberately broken
// provider fails with the reasons it was built to show, and bad input is a usage error (exit 2).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPluginTest } from '../../../host/src/cli/plugin-test.ts';
import type { ConformanceReport } from '../../../host/src/conformance/index.ts';
import { brokenPluginPath, type CloudEnv, devcloudPluginPath, startCloud } from './support.ts';

let env: CloudEnv;
let devcloudWasm: string;
let brokenWasm: string;
let fixtureJson: string;
let fixtureYaml: string;

beforeAll(async () => {
  [devcloudWasm, brokenWasm] = await Promise.all([devcloudPluginPath(), brokenPluginPath()]);
  env = await startCloud();
  const { cloud } = env;
  const a = cloud.addInstance({
    name: 'node-a',
    labels: { 'k8s-cluster': 'conformance', 'k8s-role': 'control-plane' },
  });
  cloud.addInstance({ name: 'node-b', zone: 'dc-east-1b' });
  const stopped = cloud.addInstance({ name: 'node-c' });
  cloud.stopInstance(stopped.id);
  const terminated = cloud.addInstance({ name: 'node-t' });
  cloud.terminateInstance(terminated.id);
  const fixture = {
    clusterName: 'conformance',
    nodes: {
      running: [{ name: 'node-a', providerID: `devcloud://${a.id}` }, { name: 'node-b' }],
      stopped: [{ name: 'node-c', providerID: `devcloud://${stopped.id}` }],
      // The first has no instance at all (a 404), the second a terminated one.
      missing: [{ name: 'ghost' }, { name: 'node-t', providerID: `devcloud://${terminated.id}` }],
    },
    route: { destinationCIDR: '10.251.3.0/24', targetNode: 'node-b' },
  };
  fixtureJson = join(env.dir, 'fixture.json');
  writeFileSync(fixtureJson, JSON.stringify(fixture));
  fixtureYaml = join(env.dir, 'fixture.yaml');
  writeFileSync(
    fixtureYaml,
    [
      'clusterName: conformance',
      'nodes:',
      '  running:',
      `    - {name: node-a, providerID: "devcloud://${a.id}"}`,
      '    - name: node-b',
      '  stopped: [{name: node-c}]',
      '  missing: [{name: ghost}, {name: node-t}]',
      'nodeSets: {initial: [node-a, node-b, node-c], updated: [node-b]}',
      'service:',
      '  name: yaml-web',
      '  ports: [{port: 443, nodePort: 30443}]',
      '  loadBalancerSourceRanges: [10.0.0.0/8]',
    ].join('\n'),
  );
}, 120_000);

afterAll(async () => {
  await env?.close();
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runPluginTest(args, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

function kitArgs(plugin: string, fixture: string, extra: string[] = []): string[] {
  return [
    `--plugin=${plugin}`,
    `--fixture=${fixture}`,
    `--cloud-config=${env.cloudConfigFile}`,
    `--credentials=${env.credentialsFile}`,
    `--allowed-hosts=${env.host}`,
    ...extra,
  ];
}

/** The table row of a check, by a part of its title. */
function row(out: string, title: string): string {
  const line = out.split('\n').find((l) => l.includes(title));
  if (!line) throw new Error(`no row for "${title}" in:\n${out}`);
  return line;
}

describe('wasm-ccm plugin test', () => {
  it('passes the devcloud plugin, creating one LB and leaving the cloud clean', async () => {
    env.cloud.resetCounters();
    const { code, out, err } = await run(kitArgs(devcloudWasm, fixtureJson));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^wasm-ccm plugin test: devcloud 1\.0\.0 \(ABI 1\.\d+\)/);
    expect(out).not.toMatch(/^FAIL/m);
    expect(out).toMatch(/31 checks: 29 passed, 0 failed, 2 skipped in [\d.]+ s — PASSED/);
    expect(out.match(/^skip \(not declared\) +instances: /gm)).toHaveLength(2);
    expect(row(out, 'listClusters and master')).toContain('master: 10.0.0.1');
    const inventory = env.cloud.inventory();
    expect(inventory.counters.createLoadBalancer?.total).toBe(1);
    expect(inventory.loadBalancers).toEqual([]);
    expect(inventory.routes).toEqual([]);
  });

  it('reads YAML fixtures with a Service and node sets of their own', async () => {
    const { code, out } = await run(kitArgs(devcloudWasm, fixtureYaml, ['--json']));
    const report = JSON.parse(out) as ConformanceReport;
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    const update = report.results.find((r) => r.title.startsWith('updateLoadBalancer'));
    expect(update?.detail).toBe('3 -> 1 nodes');
    const name = report.results.find((r) => r.title.startsWith('getLoadBalancerName'));
    expect(name?.detail).toBe('"conformance-default-yaml-web"');
  });

  it('fails the broken provider, saying why', async () => {
    const { code, out } = await run(kitArgs(brokenWasm, fixtureJson));
    expect(code).toBe(1);
    expect(row(out, 'describe:')).toMatch(/^pass/);
    expect(row(out, 'instanceMetadata of missing nodes')).toMatch(
      /^FAIL .*instanceMetadata\(ghost, missing\) answered Internal: devcloud\.instanceMetadata: instance lookup failed with status 404; expected InstanceNotFound/,
    );
    expect(row(out, 'ensureLoadBalancer is idempotent')).toMatch(
      /^FAIL .*second ensureLoadBalancer answered ingress (\S+), the first ingress (?!\1)\S+: ensure must update, not create another/,
    );
    const deleteRow = row(out, 'ensureLoadBalancerDeleted: idempotent');
    expect(deleteRow).toMatch(
      /^FAIL .*answered ImplementedElsewhere, which EnsureLoadBalancerDeleted must never answer/,
    );
    expect(row(out, 'every answer is valid against the ABI')).toMatch(
      /^FAIL .*ensureLoadBalancerDeleted: error\.code: ImplementedElsewhere is not an answer ensureLoadBalancerDeleted may give \(2 times\)/,
    );
    expect(row(out, 'routes: createRoute')).toMatch(/^skip \(not declared\)/);
    expect(out).toMatch(/FAILED\n$/);
  });

  it('reports a plugin that does not initialize as a failed load', async () => {
    const badConfig = join(env.dir, 'bad-cloud.json');
    writeFileSync(badConfig, JSON.stringify({ region: 'dc-east-1' }));
    const args = kitArgs(devcloudWasm, fixtureJson).map((a) =>
      a.startsWith('--cloud-config=') ? `--cloud-config=${badConfig}` : a,
    );
    const { code, out } = await run(args);
    expect(code).toBe(1);
    expect(row(out, 'load:')).toMatch(/^FAIL .*"url" is required/);
    expect(out).toContain('1 checks: 0 passed, 1 failed, 0 skipped');
  });

  it('calls without --allowed-hosts are refused by the host, and the kit says so', async () => {
    const args = kitArgs(devcloudWasm, fixtureJson).filter((a) => !a.startsWith('--allowed-hosts'));
    const { code, out } = await run(args);
    expect(code).toBe(1);
    expect(row(out, 'instanceMetadata of running nodes')).toMatch(/^FAIL .*Forbidden/);
  });

  it.each<[string, string[], string]>([
    ['no --plugin', ['--fixture=x.json'], '--plugin is required'],
    ['no --fixture', ['--plugin=x.wasm'], '--fixture is required'],
    ['an unknown flag', ['--plugin=x', '--fixture=y', '--fast'], "Unknown option '--fast'"],
    ['a bad --timeout', ['--plugin=x', '--fixture=y', '--timeout=soon'], '--timeout: "soon" is not a positive integer'],
    [
      'an unreadable fixture',
      ['--plugin=x', '--fixture=/nonexistent/f.json'],
      'cannot read fixture /nonexistent/f.json',
    ],
  ])('exits 2 on %s', async (_what, args, message) => {
    const { code, out, err } = await run(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it('exits 2 on a fixture with an unknown field, naming its path', async () => {
    const bad = join(env.dir, 'bad-fixture.json');
    writeFileSync(bad, JSON.stringify({ nodes: { running: [{ name: 'a', providerId: 'x' }] } }));
    const { code, err } = await run(kitArgs(devcloudWasm, bad));
    expect(code).toBe(2);
    expect(err).toContain('fixture $.nodes.running[0].providerId: unknown field');
  });

  it('prints usage with --help', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('Usage: wasm-ccm plugin test --plugin=<file.wasm> --fixture=<file.json|yaml>');
  });
});

// `wasm-ccm plugin test` end to end: the devcloud plugin passes against an embedded devcloud, the deliberately broken
// provider fails with the reasons it was built to show, and bad input is a usage error (exit 2).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPluginTest } from '../../../host/src/cli/plugin-test.ts';
import type { ConformanceReport } from '../../../host/src/conformance/index.ts';
import { buildPlugin, discoverPlugins } from '../../../scripts/build-plugins.ts';
import { brokenPluginPath, type BrokenVariant, type CloudEnv, devcloudPluginPath, startCloud } from './support.ts';

let env: CloudEnv;
let devcloudWasm: string;
let brokenWasm: string;
const VARIANTS = ['ignores-nodes', 'ignores-exclusions', 'every-instance', 'duplicates', 'leaks-on-delete'] as const;
/** The broken providers, compiled before the tests (a compile can outlast a test's deadline on a busy machine). */
const broken = {} as Record<Exclude<BrokenVariant, 'index'>, string>;
let fixtureJson: string;
let fixtureYaml: string;
/** The same, every node with its providerID (for providers without instancesV2 to learn them from). */
let fixtureAllIds: string;

const SELECTOR = 'service.beta.kubernetes.io/devcloud-backend-label-selector';

beforeAll(async () => {
  [devcloudWasm, brokenWasm] = await Promise.all([devcloudPluginPath(), brokenPluginPath()]);
  for (const variant of VARIANTS) broken[variant] = await brokenPluginPath(variant);
  env = await startCloud();
  const { cloud } = env;
  const a = cloud.addInstance({
    name: 'node-a',
    labels: { 'k8s-cluster': 'conformance', 'k8s-role': 'control-plane' },
  });
  const stopped = cloud.addInstance({ name: 'node-c' });
  cloud.stopInstance(stopped.id);
  const terminated = cloud.addInstance({ name: 'node-t' });
  cloud.terminateInstance(terminated.id);
  const d = cloud.addInstance({ name: 'node-d' });
  const b = cloud.addInstance({ name: 'node-b', zone: 'dc-east-1b' });
  const web = { pool: 'web' };
  const fixture = (bWithId: boolean): unknown => ({
    clusterName: 'conformance',
    nodes: {
      running: [
        { name: 'node-a', providerID: `devcloud://${a.id}`, labels: web },
        { name: 'node-b', labels: web, ...(bWithId ? { providerID: `devcloud://${b.id}` } : {}) },
        { name: 'node-d', providerID: `devcloud://${d.id}`, labels: { pool: 'batch' } },
      ],
      stopped: [{ name: 'node-c', providerID: `devcloud://${stopped.id}`, labels: web }],
      // The first has no instance at all (a 404), the second a terminated one.
      missing: [{ name: 'ghost' }, { name: 'node-t', providerID: `devcloud://${terminated.id}` }],
    },
    nodeSets: {
      initial: ['node-a', 'node-b', 'node-d'],
      updated: ['node-b', 'node-d'],
      filtered: [{ name: 'node-d', reason: 'pool=batch is not selected by the backend-label-selector' }],
    },
    service: { annotations: { [SELECTOR]: 'pool=web' }, badAnnotation: { key: SELECTOR, value: '=web' } },
    backendProbe: { url: `${cloud.url}/v1/load-balancers/{lb}`, path: 'backendInstanceIds', identity: 'instanceID' },
    loadBalancerProbe: { url: `${cloud.url}/v1/load-balancers?tag=k8s-cluster=conformance`, path: 'items[].name' },
    route: { destinationCIDR: '10.251.3.0/24', targetNode: 'node-b' },
  });
  fixtureAllIds = join(env.dir, 'fixture-all-ids.json');
  writeFileSync(fixtureAllIds, JSON.stringify(fixture(true)));
  fixtureJson = join(env.dir, 'fixture.json');
  writeFileSync(fixtureJson, JSON.stringify(fixture(false)));
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
}, 600_000);

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
    expect(out).toMatch(/40 checks: 38 passed, 0 failed, 2 skipped in [\d.]+ s — PASSED/);
    expect(out.match(/^skip \(not declared\) +instances: /gm)).toHaveLength(2);
    expect(row(out, 'backends after ensure')).toMatch(/^pass .*2 backends, 1 filtered out$/);
    expect(row(out, 'backends after update')).toMatch(/^pass .*1 backend, 1 filtered out$/);
    expect(row(out, 'update with a changed node set')).toMatch(/^pass .*1 mutating request$/);
    expect(row(out, 'cloud: ensure adds')).toMatch(/^pass .*0 load balancers -> 1: conformance-default-wasm-ccm-conf/);
    expect(row(out, 'cloud: a repeated ensure adds none')).toMatch(/^pass .*1 load balancer, as after the first$/);
    expect(row(out, 'cloud: none left after delete')).toMatch(/^pass .*0 load balancers, as before/);
    expect(row(out, 'bad annotation')).toMatch(/^pass .*Invalid: .*devcloud-back/);
    expect(row(out, 'every credential reaches')).toMatch(/^pass /);
    expect(row(out, 'listClusters and master')).toContain('master: 10.0.0.1');
    const inventory = env.cloud.inventory();
    expect(inventory.counters.createLoadBalancer?.total).toBe(1);
    expect(inventory.loadBalancers).toEqual([]);
    expect(inventory.routes).toEqual([]);
  });

  it('reads YAML fixtures; without probes or reasons the verdict is INCOMPLETE, exit 3', async () => {
    const { code, out } = await run(kitArgs(devcloudWasm, fixtureYaml, ['--json']));
    const report = JSON.parse(out) as ConformanceReport;
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(code).toBe(3);
    const update = report.results.find((r) => r.title.startsWith('updateLoadBalancer'));
    expect(update?.detail).toBe('3 -> 1 nodes');
    // No probe and no reason: the checks that read the cloud are incomplete and say which field is missing.
    const incomplete = report.results.filter((r) => r.status === 'incomplete');
    expect(incomplete.map((r) => r.title)).toEqual([
      'cloud: ensure adds a load balancer',
      'backends after ensure: exactly the nodes sent',
      'cloud: a repeated ensure adds none',
      'backends after update: exactly the nodes sent',
      'cloud: none left after delete',
    ]);
    expect(incomplete[1]!.detail).toMatch(
      /^no backendProbe in the fixture, and no backendProbe\.unavailable .*: without it a provider that ignores its node list would pass$/,
    );
    expect(incomplete[0]!.detail).toMatch(
      /^no loadBalancerProbe in the fixture, and no loadBalancerProbe\.unavailable/,
    );
    expect(report.results.find((r) => r.title.startsWith('update with a changed'))?.status).toBe('pass');
    // The YAML fixture names no bad annotation either.
    expect(report.summary).toEqual({
      passed: report.results.length - 8,
      failed: 0,
      skipped: 3,
      incomplete: 5,
      verdict: 'INCOMPLETE',
      ok: false,
    });
    const name = report.results.find((r) => r.title.startsWith('getLoadBalancerName'));
    expect(name?.detail).toBe('"conformance-default-yaml-web"');
  }, 60_000); // the first YAML fixture loads the YAML reader (client-node), slow on a busy machine

  it('passes a fixture that states why the cloud cannot be probed, printing the reasons', async () => {
    const fixture = join(env.dir, 'fixture-unavailable.yaml');
    writeFileSync(
      fixture,
      `${readFileSync(fixtureYaml, 'utf8')}\n` +
        'backendProbe: { unavailable: the API keeps backends per pool }\n' +
        'loadBalancerProbe: { unavailable: the API lists no load balancers }\n',
    );
    const { code, out } = await run(kitArgs(devcloudWasm, fixture));
    expect(code).toBe(0);
    expect(row(out, 'backends after ensure')).toMatch(
      /^skip \(not probed\) +loadBalancer: .* the API keeps backends per pool$/,
    );
    expect(row(out, 'cloud: none left')).toMatch(/^skip \(not probed\) .* the API lists no load balancers$/);
    expect(out).toContain('not probed (backends): the API keeps backends per pool\n');
    expect(out).toContain('not probed (loadBalancers): the API lists no load balancers\n');
    expect(out).toMatch(/40 checks: \d+ passed, 0 failed, 8 skipped in [\d.]+ s — PASSED\n$/);
  });

  it('does not pass a provider that ignores its node list when the fixture has no probe: INCOMPLETE', async () => {
    // Its update still writes (the same backends): only the cloud shows that they are not the nodes sent.
    const { code, out } = await run(kitArgs(broken['every-instance'], fixtureYaml));
    expect(code).toBe(3);
    expect(out).not.toMatch(/^FAIL/m);
    expect(row(out, 'backends after ensure')).toMatch(/^INCOMPLETE +loadBalancer: .* no backendProbe in the fixture/);
    expect(row(out, 'update with a changed node set')).toMatch(/^pass /);
    expect(out).toMatch(/40 checks: \d+ passed, 0 failed, \d+ skipped, 5 incomplete in [\d.]+ s — INCOMPLETE\n/);
    expect(out).toMatch(/^INCOMPLETE: the checks above marked INCOMPLETE could not look at the cloud/m);
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
      /^FAIL .*ensureLoadBalancerDeleted: error\.code: ImplementedElsewhere is not an answer ensureLoadBalancerDeleted may give \(3 times\)/,
    );
    expect(row(out, 'routes: createRoute')).toMatch(/^skip \(not declared\)/);
    expect(out).toMatch(/FAILED\n$/);
  });

  it('fails the provider that ignores node lists, saying what to fix', async () => {
    const { code, out } = await run(kitArgs(broken['ignores-nodes'], fixtureAllIds, ['--json']));
    expect(code).toBe(1);
    const report = JSON.parse(out) as ConformanceReport;
    const failed = report.results.filter((r) => r.status === 'fail');
    expect(failed.map((r) => r.title)).toEqual([
      'backends after ensure: exactly the nodes sent',
      'update with a changed node set changes the cloud',
      'backends after update: exactly the nodes sent',
    ]);
    expect(failed[0]!.detail).toMatch(
      /^after ensureLoadBalancer the backends are \[\], expected \[i-\S+, i-\S+\]: missing node-a \(i-\S+\), node-b \(i-\S+\): every node of the request is a backend/,
    );
    expect(failed[1]!.detail).toContain('made no POST, PUT, PATCH or DELETE request: update the backends');
    expect(report.summary).toMatchObject({ failed: 3, ok: false });
  });

  it('fails the provider that ignores exclusions, naming the node and the reason', async () => {
    const { code, out } = await run(kitArgs(broken['ignores-exclusions'], fixtureAllIds));
    expect(code).toBe(1);
    for (const when of ['ensure', 'update']) {
      expect(row(out, `backends after ${when}`)).toMatch(
        /^FAIL .*node-d \(i-\S+\) is a backend but must be left out \(pool=batch is not selected by the backend-label-selector\): apply the exclusion/,
      );
    }
    expect(row(out, 'update with a changed node set')).toMatch(/^pass/);
    expect(out).toMatch(/40 checks: \d+ passed, 2 failed, \d+ skipped/);
  });

  it('fails the provider whose backends are every instance, naming the node list as the cause', async () => {
    const { code, out } = await run(kitArgs(broken['every-instance'], fixtureAllIds));
    expect(code).toBe(1);
    // After ensure the only difference is the filtered node: the exclusion is what to fix there.
    expect(row(out, 'backends after ensure')).toMatch(
      /^FAIL .*node-d \(i-\S+\) is a backend but must be left out .*: apply the exclusion$/,
    );
    const update = row(out, 'backends after update');
    expect(update).toMatch(
      /i-\S+ is a backend but no node of the request: the backends must come from the node list sent/,
    );
    expect(update).toMatch(
      /node-d \(i-\S+\) is a backend but must be left out .*, and the other backends are not the nodes sent either/,
    );
    expect(update).not.toContain('apply the exclusion');
  });

  it('fails the provider that creates another load balancer on every ensure, probing each on its own', async () => {
    const fixture = join(env.dir, 'fixture-by-uid.json');
    const doc = JSON.parse(readFileSync(fixtureAllIds, 'utf8')) as Record<string, unknown>;
    // A query for the Service's load balancers: each one found is read on its own, never merged.
    doc.backendProbe = {
      url: `${env.cloud.url}/v1/load-balancers?tag=k8s-service-uid={uid}`,
      loadBalancers: 'items[]',
      path: 'backendInstanceIds',
      identity: 'instanceID',
    };
    writeFileSync(fixture, JSON.stringify(doc));
    const { code, out } = await run(kitArgs(broken['duplicates'], fixture));
    expect(code).toBe(1);
    // The plugin answers the same status every time: only the cloud shows the second load balancer.
    expect(row(out, 'ensureLoadBalancer is idempotent')).toMatch(/^pass /);
    expect(row(out, 'cloud: ensure adds')).toMatch(/^pass .*: bk-[0-9a-f-]{36}$/);
    expect(row(out, 'cloud: a repeated ensure adds none')).toMatch(
      /^FAIL .*the second ensureLoadBalancer added bk-[0-9a-f-]{36}-\d+ \((\d+) load balancers? -> (?!\1)\d+\): ensure must find the load balancer it made and update it, not create another$/,
    );
    expect(row(out, 'backends after update')).toMatch(
      /^FAIL .*found \d load balancers for the Service \(#1 \[i-\S+\]; #2 \[i-\S+, i-\S+\]; .*\): a Service has one load balancer/,
    );
    expect(row(out, 'cloud: none left after delete')).toMatch(/^FAIL .*still holds bk-[0-9a-f-]{36}-\d+/);
  });

  it('fails the provider whose delete leaves the load balancer in the cloud', async () => {
    const { code, out } = await run(kitArgs(broken['leaks-on-delete'], fixtureAllIds, ['--json']));
    expect(code).toBe(1);
    const report = JSON.parse(out) as ConformanceReport;
    const failed = report.results.filter((r) => r.status === 'fail');
    // getLoadBalancer says it is gone: only the cloud's list shows it is not.
    expect(failed.map((r) => r.title)).toEqual(['cloud: none left after delete']);
    expect(failed[0]!.detail).toMatch(
      /^after ensureLoadBalancerDeleted the cloud still holds bk-[0-9a-f-]{36}, which the run's ensures added: delete must remove every load balancer ensure created$/,
    );
    expect(report.summary.verdict).toBe('FAILED');
  });

  it('makes the probe GET under the plugin allow-list: another host is refused, and the check says so', async () => {
    const fixture = join(env.dir, 'fixture-other-host.json');
    const doc = JSON.parse(readFileSync(fixtureJson, 'utf8')) as { backendProbe: { url: string } };
    doc.backendProbe.url = 'http://127.0.0.2:9/load-balancers/{lb}';
    writeFileSync(fixture, JSON.stringify(doc));
    const lbsBefore = env.cloud.inventory().loadBalancers.length;
    const { code, out } = await run(kitArgs(devcloudWasm, fixture));
    expect(code).toBe(1);
    expect(row(out, 'backends after ensure')).toMatch(
      /^FAIL .*backend probe GET http:\/\/127\.0\.0\.2:9\/load-balancers\/conformance-\S+ failed: Forbidden: request to 127\.0\.0\.2:9 is not allowed/,
    );
    expect(env.cloud.inventory().loadBalancers).toHaveLength(lbsBefore);
  });

  it('warns about, and fails, credentials that reach no allowed host or only through a default port', async () => {
    const credentials = join(env.dir, 'stray-credentials.json');
    writeFileSync(
      credentials,
      JSON.stringify({
        credentials: [
          { name: 'devcloud', hosts: [env.host], bearerToken: 'conformance-test-token', insecure: true },
          { name: 'stale', hosts: ['old.example'], bearerToken: 'x' },
          { name: 'api', hosts: ['api.example'], bearerToken: 'y' },
        ],
      }),
    );
    const args = kitArgs(devcloudWasm, fixtureJson, [`--allowed-hosts=api.example:443`]).map((a) =>
      a.startsWith('--credentials=') ? `--credentials=${credentials}` : a,
    );
    const { code, out } = await run(args);
    expect(code).toBe(1);
    expect(out).toContain('WARNING: credential stale: host old.example matches no allowed host');
    expect(out).toContain(
      'WARNING: credential api: host api.example matches allowed host api.example:443 only through the default-port rule',
    );
    expect(row(out, 'every credential reaches')).toMatch(/^FAIL .*credential stale: .*; credential api: /);
    expect(out).toMatch(/40 checks: \d+ passed, 1 failed/);
  });

  it('passes the example plugin (no load balancers) with a probe configured: its LB checks are not declared', async () => {
    const example = discoverPlugins().find((p) => p.name === 'example')!;
    const wasm = (await buildPlugin(example)).outFile;
    const cloudConfig = join(env.dir, 'example-cloud.json');
    writeFileSync(
      cloudConfig,
      JSON.stringify({
        instances: [
          { id: 'i-1', nodeName: 'node-a' },
          { id: 'i-2', nodeName: 'node-s', shutdown: true },
        ],
      }),
    );
    const fixture = join(env.dir, 'example-fixture.json');
    writeFileSync(
      fixture,
      JSON.stringify({
        nodes: { running: [{ name: 'node-a' }], stopped: [{ name: 'node-s' }], missing: [{ name: 'ghost' }] },
        backendProbe: {
          url: `${env.cloud.url}/v1/load-balancers/{lb}`,
          path: 'backendInstanceIds',
          identity: 'instanceID',
        },
      }),
    );
    const { code, out } = await run([`--plugin=${wasm}`, `--fixture=${fixture}`, `--cloud-config=${cloudConfig}`]);
    expect(code).toBe(0);
    expect(row(out, 'backends after ensure')).toMatch(/^skip \(not declared\)/);
    expect(row(out, 'instanceMetadata of running nodes')).toMatch(/^pass/);
    expect(out).toMatch(/PASSED\n$/);
  }, 120_000); // it builds the example plugin first

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

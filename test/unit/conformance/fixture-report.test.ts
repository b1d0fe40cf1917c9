// The conformance kit's pure parts: reading fixtures (defaults and errors with paths) and the report table; and the
// devcloud plugin's version variant (same module but for the version it reports).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type CheckResult, formatReport, parseFixture } from '../../../host/src/conformance/index.ts';
import { valuesAt } from '../../../host/src/conformance/fixture-backends.ts';
import { summarize } from '../../../host/src/conformance/report.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildDevcloudVariant } from '../../../plugins/devcloud/build-variant.ts';
import { devcloudPluginPath } from './support.ts';

describe('conformance fixture', () => {
  const nodes = {
    running: [{ name: 'a' }, { name: 'b', providerID: 'p://b', labels: { role: 'x' } }],
    stopped: [{ name: 'c' }],
  };

  it('fills in a default Service (fresh UID every time), node sets that differ, and a route', () => {
    const f = parseFixture({ nodes });
    expect(f.clusterName).toBe('kubernetes');
    expect(f.service).toMatchObject({
      name: 'wasm-ccm-conformance',
      namespace: 'default',
      ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }],
    });
    expect(f.service.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseFixture({ nodes }).service.uid).not.toBe(f.service.uid);
    expect(f.initialNodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(f.updatedNodes.map((n) => n.name)).toEqual(['a']);
    expect(f.running[1]).toMatchObject({ providerID: 'p://b', labels: { role: 'x' }, annotations: {}, addresses: [] });
    expect(f.route).toMatchObject({ destinationCIDR: '10.250.0.0/24', targetNode: { name: 'a' } });
    // With one node, the update adds the stopped ones.
    expect(
      parseFixture({ nodes: { running: [{ name: 'a' }], stopped: [{ name: 'c' }] } }).updatedNodes.map((n) => n.name),
    ).toEqual(['a', 'c']);
  });

  it('reads node annotations and addresses, filtered nodes, a backend probe and a bad annotation', () => {
    const f = parseFixture({
      nodes: {
        running: [
          { name: 'a', annotations: { note: 'x' }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
          { name: 'b', addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] },
        ],
      },
      nodeSets: { filtered: [{ name: 'b', reason: 'no role label' }] },
      service: { badAnnotation: { key: 'acme/port', value: 'http' } },
      backendProbe: { url: 'http://cloud:1/lbs/{lb}', path: 'pool[].ip', identity: 'address' },
    });
    expect(f.running[0]).toMatchObject({
      annotations: { note: 'x' },
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    });
    expect([...f.filtered]).toEqual([['b', 'no role label']]);
    expect(f.backendProbe).toEqual({
      url: 'http://cloud:1/lbs/{lb}',
      path: 'pool[].ip',
      identity: 'address',
      addressType: 'InternalIP',
    });
    expect(f.badAnnotation).toEqual({ key: 'acme/port', value: 'http' });
    expect(f.service.annotations).toEqual({});
    expect(parseFixture({ nodes }).backendProbe).toBeUndefined();
  });

  it("sends a node's systemUUID only when the fixture gives one, and refuses an empty one", () => {
    const f = parseFixture({ nodes: { running: [{ name: 'a', systemUUID: 'B2A11042-D4C3-F6E5-0718-293A4B5C6D01' }] } });
    expect(f.running[0]?.systemUUID).toBe('B2A11042-D4C3-F6E5-0718-293A4B5C6D01');
    expect(parseFixture({ nodes }).running[0]).not.toHaveProperty('systemUUID');
    expect(() => parseFixture({ nodes: { running: [{ name: 'a', systemUUID: '' }] } })).toThrow(
      /nodes\.running\[0\]\.systemUUID.*non-empty string/,
    );
  });

  it('reads a list-style backend probe, a load-balancer probe, and reasons in place of probes', () => {
    const f = parseFixture({
      nodes,
      backendProbe: {
        url: 'http://c/lbs?tag=uid={uid}',
        loadBalancers: 'items[]',
        path: 'ids',
        identity: 'instanceID',
      },
      loadBalancerProbe: { url: 'http://c/lbs', path: 'items[].name' },
    });
    expect(f.backendProbe).toMatchObject({ url: 'http://c/lbs?tag=uid={uid}', loadBalancers: 'items[]', path: 'ids' });
    expect(f.loadBalancerProbe).toEqual({ url: 'http://c/lbs', path: 'items[].name' });
    expect(f.notProbed).toEqual({});
    const excused = parseFixture({
      nodes,
      backendProbe: { unavailable: 'members are per pool' },
      loadBalancerProbe: { unavailable: 'XML only' },
    });
    expect(excused.backendProbe).toBeUndefined();
    expect(excused.loadBalancerProbe).toBeUndefined();
    expect(excused.notProbed).toEqual({ backends: 'members are per pool', loadBalancers: 'XML only' });
  });

  it('finds backends by a path of fields and lists, and says where a path does not fit', () => {
    const doc = { lb: { pool: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ids: ['i-1', 7] } };
    expect(valuesAt(doc, 'lb.pool[].ip')).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(valuesAt(doc, 'lb.ids')).toEqual(['i-1', '7']);
    expect(valuesAt(doc, 'lb.ids[]')).toEqual(['i-1', '7']);
    expect(valuesAt(doc, 'lb.pool[].id')).toBe('lb.pool[].id: no field "id"');
    expect(valuesAt(doc, 'lb[].ip')).toBe('lb[]: not a list');
    expect(valuesAt(doc, 'lb.pool')).toMatch(/^lb\.pool: holds \{"ip":"10\.0\.0\.1"\}, not strings$/);
  });

  it.each<[string, unknown, string]>([
    [
      'a probe without {lb} or {ingress}',
      { nodes, backendProbe: { url: 'http://c/lbs', path: 'x', identity: 'instanceID' } },
      '$.backendProbe.url: must name the load balancer',
    ],
    [
      'an empty reason in place of a probe',
      { nodes, loadBalancerProbe: { unavailable: '' } },
      '$.loadBalancerProbe.unavailable: must be a non-empty string',
    ],
    [
      'a reason beside a probe',
      { nodes, backendProbe: { url: 'http://c/{lb}', path: 'x', identity: 'instanceID', unavailable: 'x' } },
      '$.backendProbe.url: unknown field (allowed: unavailable)',
    ],
    [
      'a load-balancer probe without a path',
      { nodes, loadBalancerProbe: { url: 'http://c/lbs' } },
      '$.loadBalancerProbe.path: must be a non-empty string',
    ],
    [
      'a probe that is not http(s)',
      { nodes, backendProbe: { url: 'file:///lbs/{lb}', path: 'x', identity: 'instanceID' } },
      '$.backendProbe.url: "file:///lbs/{lb}" is not an absolute http(s) URL',
    ],
    [
      'a probe with a bad path',
      { nodes, backendProbe: { url: 'http://c/{lb}', path: 'a..b', identity: 'instanceID' } },
      '$.backendProbe.path: "a..b" must be field names joined by dots',
    ],
    [
      'a probe with an unknown identity',
      { nodes, backendProbe: { url: 'http://c/{lb}', path: 'a', identity: 'name' } },
      '$.backendProbe.identity: must be instanceID or address',
    ],
    [
      'an address probe and a node without that address',
      { nodes, backendProbe: { url: 'http://c/{lb}', path: 'a', identity: 'address' } },
      '$.backendProbe.identity: address: node a has no InternalIP address',
    ],
    [
      'a filtered node without a reason',
      { nodes, nodeSets: { filtered: [{ name: 'a' }] } },
      '$.nodeSets.filtered[0].reason: must be a non-empty string',
    ],
    [
      'a bad address type',
      { nodes: { running: [{ name: 'a', addresses: [{ type: 'Internal', address: 'x' }] }] } },
      '$.nodes.running[0].addresses[0].type: must be one of',
    ],
    [
      'a bad annotation without a key',
      { nodes, service: { badAnnotation: { value: 'x' } } },
      '$.service.badAnnotation.key: must be a non-empty string',
    ],
  ])('rejects %s, naming the path', (_what, doc, message) => {
    expect(() => parseFixture(doc)).toThrow(message);
  });

  it.each<[string, unknown, string]>([
    ['no nodes', {}, '$.nodes: is required'],
    ['no running node', { nodes: { running: [] } }, '$.nodes.running: needs at least one node'],
    ['an unknown top-level field', { nodes, cluster: 'x' }, '$.cluster: unknown field'],
    [
      'a node without a name',
      { nodes: { running: [{ providerID: 'x' }] } },
      '$.nodes.running[0].name: must be a non-empty string',
    ],
    [
      'a duplicate node',
      { nodes: { running: [{ name: 'a' }], missing: [{ name: 'a' }] } },
      'node name a appears twice',
    ],
    [
      'a node set naming a missing node',
      { nodes: { ...nodes, missing: [{ name: 'm' }] }, nodeSets: { initial: ['m'] } },
      '$.nodeSets.initial[0]: "m" is not a running or stopped node',
    ],
    [
      'a bad port',
      { nodes, service: { ports: [{ port: 0, nodePort: 1 }] } },
      '$.service.ports[0].port: must be 1..65535',
    ],
    [
      'a bad label value',
      { nodes: { running: [{ name: 'a', labels: { x: 1 } }] } },
      '$.nodes.running[0].labels.x: must be a string',
    ],
  ])('rejects %s, naming the path', (_what, doc, message) => {
    expect(() => parseFixture(doc)).toThrow(message);
  });
});

describe('conformance report', () => {
  it('prints a table with full failure reasons, skip reasons, warnings and a summary', () => {
    const results: CheckResult[] = [
      { group: 'plugin', title: 'describe', status: 'pass', detail: 'x'.repeat(200), ms: 1 },
      { group: 'instancesV2', title: 'exists', status: 'fail', detail: `because ${'y'.repeat(150)}`, ms: 1 },
      { group: 'routes', title: 'round trip', status: 'skip', detail: 'not declared', ms: 0 },
      { group: 'instancesV2', title: 'stopped', status: 'skip', detail: 'the fixture lists no stopped nodes', ms: 0 },
      { group: 'loadBalancer', title: 'backends', status: 'skip', detail: 'not probed: no API', ms: 0 },
      { group: 'loadBalancer', title: 'count', status: 'incomplete', detail: 'no loadBalancerProbe', ms: 0 },
    ];
    const summary = summarize(results);
    expect(summary).toEqual({ passed: 1, failed: 1, skipped: 3, incomplete: 1, verdict: 'FAILED', ok: false });
    const text = formatReport({
      pluginPath: 'p.wasm',
      warnings: ['credential c: host h matches no allowed host'],
      notProbed: { backends: 'no API' },
      summary,
      description: {
        abi: '1.0',
        providerName: 'acme',
        version: '2.1.0',
        capabilities: ['instancesV2'],
        hasClusterID: false,
      },
      elapsedMs: 1234,
      results,
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('wasm-ccm plugin test: acme 2.1.0 (ABI 1.0) from p.wasm');
    expect(lines[1]).toBe('declared capabilities: instancesV2');
    expect(lines[2]).toBe('WARNING: credential c: host h matches no allowed host');
    expect(lines[4]).toMatch(/^RESULT {15}CHECK {19}DETAIL$/);
    expect(lines[5]).toBe(`pass                 plugin: describe        ${'x'.repeat(89)}…`);
    expect(lines[6]).toBe(`FAIL                 instancesV2: exists     because ${'y'.repeat(150)}`);
    expect(lines[7]).toBe('skip (not declared)  routes: round trip');
    expect(lines[8]).toBe('skip                 instancesV2: stopped    (the fixture lists no stopped nodes)');
    expect(lines[9]).toBe('skip (not probed)    loadBalancer: backends  no API');
    expect(lines[10]).toBe('INCOMPLETE           loadBalancer: count     no loadBalancerProbe');
    expect(lines[12]).toBe('not probed (backends): no API');
    expect(lines[13]).toBe('6 checks: 1 passed, 1 failed, 3 skipped, 1 incomplete in 1.2 s — FAILED');
  });

  it('gives the verdict INCOMPLETE when nothing failed but a check is incomplete, and says what to do', () => {
    const results: CheckResult[] = [
      { group: 'plugin', title: 'describe', status: 'pass', detail: 'ok', ms: 1 },
      { group: 'loadBalancer', title: 'count', status: 'incomplete', detail: 'no loadBalancerProbe', ms: 0 },
    ];
    const summary = summarize(results);
    expect(summary).toMatchObject({ incomplete: 1, verdict: 'INCOMPLETE', ok: false });
    const text = formatReport({
      pluginPath: 'p.wasm',
      warnings: [],
      notProbed: {},
      summary,
      description: undefined,
      elapsedMs: 10,
      results,
    });
    expect(text).toMatch(/2 checks: 1 passed, 0 failed, 0 skipped, 1 incomplete in 0\.0 s — INCOMPLETE\n/);
    expect(text).toMatch(
      /\nINCOMPLETE: .*state why your cloud cannot be probed \(\{unavailable: <reason>\} in its place\)\.\n$/,
    );
  });
});

describe('devcloud plugin version variant', () => {
  it('reports the major it was built with and is otherwise the same provider', async () => {
    const outFile = join(tmpdir(), `devcloud-v3-${process.pid}.wasm`);
    const { outFile: built } = await buildDevcloudVariant(3, {
      outFile,
      optimize: false,
      cacheDir: fileURLToPath(new URL('../../../plugins/devcloud/build/cache', import.meta.url)),
    });
    const config = JSON.stringify({ url: 'http://127.0.0.1:1', region: 'r' });
    const v3 = await WasmProvider.load({ source: { path: built }, cloudConfig: config, pool: { size: 1 } });
    const v1 = await WasmProvider.load({
      source: { path: await devcloudPluginPath() },
      cloudConfig: config,
      pool: { size: 1 },
    });
    try {
      expect(v3.plugin.description.version).toBe('3.0.0');
      expect(v1.plugin.description.version).toBe('1.0.0');
      expect({ ...v3.plugin.description, version: '' }).toEqual({ ...v1.plugin.description, version: '' });
    } finally {
      await Promise.all([v3.close(), v1.close()]);
    }
    await expect(buildDevcloudVariant(0)).rejects.toThrow('major must be 1..999');
    // It compiles the devcloud plugin (8 s idle, 26 s on two busy cores).
  }, 120_000);
});

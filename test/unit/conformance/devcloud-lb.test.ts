// The devcloud plugin's load balancers and routes, through the real runtime against an embedded devcloud; what the
// plugin did is read back from devcloud's inventory.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LoadBalancer as CloudLB } from '../../../devcloud/src/index.ts';
import { type Service, keptList } from '../../../host/src/abi/index.ts';
import { PluginInstance } from '../../../host/src/plugin/sandbox/plugin-instance.ts';
import type { WasmProvider } from '../../../host/src/plugin/index.ts';
import {
  type CloudEnv,
  cloudApi,
  devcloudPluginPath,
  failure,
  loadDevcloudPlugin,
  node,
  service,
  startCloud,
} from './support.ts';

const A = 'service.beta.kubernetes.io/devcloud-';
let env: CloudEnv;
let provider: WasmProvider;
const ids: Record<string, string> = {};
const pid = (name: string) => `devcloud://${ids[name]}`;

beforeAll(async () => {
  const wasmPath = await devcloudPluginPath();
  env = await startCloud();
  for (const name of ['n1', 'n2', 'n3']) ids[name] = env.cloud.addInstance({ name }).id;
  provider = await loadDevcloudPlugin(wasmPath, env);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await env?.close();
});

afterEach(async () => {
  env.cloud.resetKnobs();
  for (const lb of env.cloud.inventory().loadBalancers) await cloudApi(env, 'DELETE', `/load-balancers/${lb.name}`);
  for (const r of env.cloud.inventory().routes) await cloudApi(env, 'DELETE', `/routes/${r.name}`);
});

function lbs(): CloudLB[] {
  return env.cloud.inventory().loadBalancers;
}

function fnv1a64(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

describe('devcloud plugin: load balancers', () => {
  it('ensure creates one LB with listeners, backends, ownership tags and the VIP as status; again changes nothing', async () => {
    const lb = provider.loadBalancer()!;
    const svc = service({ loadBalancerSourceRanges: ['10.0.0.0/8'] });
    // n3 is looked up by name; a node of another cloud and an unknown name are left out.
    const nodes = [node('n1', pid('n1')), node('n2', pid('n2')), node('n3'), node('x', 'gce://p/z/x'), node('ghost')];
    const status = await lb.ensureLoadBalancer('kubernetes', svc, keptList(nodes));
    expect(lbs()).toHaveLength(1);
    const made = lbs()[0]!;
    expect(status).toEqual({ ingress: [{ ip: made.vip, hostname: '', ipMode: 'VIP', ports: [] }] });
    expect(made).toMatchObject({
      name: 'kubernetes-default-web',
      listeners: [{ protocol: 'TCP', port: 80, nodePort: 30080 }],
      backendInstanceIds: [ids.n1, ids.n2, ids.n3].sort(),
      sourceRanges: ['10.0.0.0/8'],
      healthCheckNodePort: null,
      tags: { 'k8s-cluster': 'kubernetes', 'k8s-service': 'default/web', 'k8s-service-uid': svc.uid },
      description: 'Kubernetes service default/web (cluster kubernetes)',
      revision: 1,
    });
    expect(await lb.ensureLoadBalancer('kubernetes', svc, keptList(nodes))).toEqual(status);
    expect(lbs().map((l) => l.revision)).toEqual([1]);
    expect(await lb.getLoadBalancer('kubernetes', svc)).toEqual({ exists: true, status });
    expect(await lb.getLoadBalancerName('kubernetes', svc)).toBe('kubernetes-default-web');
  });

  it('update changes the backends; on a missing LB it fails so the controller ensures', async () => {
    const lb = provider.loadBalancer()!;
    const svc = service();
    await lb.ensureLoadBalancer('kubernetes', svc, keptList([node('n1', pid('n1'))]));
    await lb.updateLoadBalancer('kubernetes', svc, keptList([node('n2', pid('n2')), node('n3', pid('n3'))]));
    expect(lbs()[0]).toMatchObject({ backendInstanceIds: [ids.n2, ids.n3].sort(), revision: 2 });
    const missing = await failure(lb.updateLoadBalancer('kubernetes', service({ name: 'other' }), keptList([])));
    expect(missing.code).toBe('Internal');
    expect(missing.message).toContain('kubernetes-default-other does not exist');
  });

  it('frozen node lists reused across Services (sent once, then by reference: ABI 1.2) give the right backends', async () => {
    const lb = provider.loadBalancer()!;
    const all = Object.freeze([
      node('n1', pid('n1'), { role: 'edge' }),
      node('n2', pid('n2')),
      node('n3', pid('n3'), { role: 'edge' }),
    ]) as ReturnType<typeof node>[];
    const two = Object.freeze([node('n1', pid('n1')), node('n2', pid('n2'))]) as typeof all;
    // What each load balancer call carried: the whole list, or only its reference.
    const sent: string[] = [];
    const original = PluginInstance.prototype.call;
    const spy = vi.spyOn(PluginInstance.prototype, 'call').mockImplementation(function (
      this: PluginInstance,
      name,
      input,
      timeoutMs,
    ) {
      const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
      if (name.endsWith('e_load_balancer')) sent.push(text.includes('"nodes":[]') ? 'ref' : 'list');
      return original.call(this, name, input, timeoutMs);
    });
    try {
      await lb.ensureLoadBalancer('kubernetes', service({ name: 'a' }), keptList(all));
      await lb.ensureLoadBalancer('kubernetes', service({ name: 'b' }), keptList(all));
      await lb.updateLoadBalancer('kubernetes', service({ name: 'a' }), keptList(two));
      // Back to the first list, which the instance no longer keeps: it is sent again.
      await lb.ensureLoadBalancer('kubernetes', service({ name: 'c' }), keptList(all));
      // The same kept list under a backend selector: the plugin's backends of the list must not be reused as they are.
      const edge = service({ name: 'd', annotations: { [`${A}backend-label-selector`]: 'role=edge' } });
      await lb.ensureLoadBalancer('kubernetes', edge, keptList(all));
      await lb.ensureLoadBalancer('kubernetes', service({ name: 'e' }), keptList(all));
    } finally {
      spy.mockRestore();
    }
    expect(sent).toEqual(['list', 'ref', 'list', 'list', 'ref', 'ref']);
    const backends = Object.fromEntries(lbs().map((l) => [l.name, l.backendInstanceIds]));
    expect(backends).toEqual({
      'kubernetes-default-a': [ids.n1, ids.n2].sort(),
      'kubernetes-default-b': [ids.n1, ids.n2, ids.n3].sort(),
      'kubernetes-default-c': [ids.n1, ids.n2, ids.n3].sort(),
      'kubernetes-default-d': [ids.n1, ids.n3].sort(),
      'kubernetes-default-e': [ids.n1, ids.n2, ids.n3].sort(),
    });
    expect(provider.plugin.description.abi).toBe('1.4');
  });

  it('GetLoadBalancer and EnsureLoadBalancerDeleted only see their own LBs; delete is idempotent', async () => {
    const lb = provider.loadBalancer()!;
    const svc = service();
    await lb.ensureLoadBalancer('kubernetes', svc, keptList([]));
    const newUid = { ...svc, uid: '11111111-2222-3333-4444-555555555555' };
    expect((await lb.getLoadBalancer('kubernetes', newUid)).exists).toBe(false);
    expect((await lb.getLoadBalancer('prod', svc)).exists).toBe(false);
    await lb.ensureLoadBalancerDeleted('kubernetes', newUid); // not its LB: left alone
    expect(lbs()).toHaveLength(1);
    await lb.ensureLoadBalancerDeleted('kubernetes', svc);
    expect(lbs()).toHaveLength(0);
    await lb.ensureLoadBalancerDeleted('kubernetes', svc);
    expect((await lb.getLoadBalancer('kubernetes', svc)).exists).toBe(false);
  });

  it('a re-created Service (same name, new UID) takes over the old LB; another owner is refused', async () => {
    const lb = provider.loadBalancer()!;
    const svc = service();
    await lb.ensureLoadBalancer('kubernetes', svc, keptList([]));
    const reborn = { ...svc, uid: '99999999-2222-3333-4444-555555555555' };
    await lb.ensureLoadBalancer('kubernetes', reborn, keptList([]));
    expect(lbs()[0]!.tags['k8s-service-uid']).toBe(reborn.uid);
    await cloudApi(env, 'POST', '/load-balancers', {
      name: 'kubernetes-default-api',
      listeners: [],
      backendInstanceIds: [],
      tags: { 'k8s-cluster': 'kubernetes', 'k8s-service': 'default-api/x' },
    });
    const err = await failure(lb.ensureLoadBalancer('kubernetes', service({ name: 'api' }), keptList([])));
    expect(err.code).toBe('Internal');
    expect(err.message).toContain('belongs to cluster "kubernetes" service "default-api/x"');
  });

  it('annotations: VIP, description, backend label selector, health-check port', async () => {
    const lb = provider.loadBalancer()!;
    const svc = service({
      loadBalancerIP: '198.18.7.7',
      annotations: {
        [`${A}vip`]: '198.18.7.7',
        [`${A}description`]: 'ingress for web',
        [`${A}backend-label-selector`]: 'role=ingress, zone',
        [`${A}health-check-port`]: '10256',
        'unrelated.example/annotation': 'kept out of it',
      },
    });
    const nodes = [
      node('n1', pid('n1'), { role: 'ingress', zone: 'a' }),
      node('n2', pid('n2'), { role: 'ingress' }),
      node('n3', pid('n3'), { role: 'worker', zone: 'a' }),
    ];
    const status = await lb.ensureLoadBalancer('kubernetes', svc, keptList(nodes));
    expect(status.ingress[0]!.ip).toBe('198.18.7.7');
    expect(lbs()[0]).toMatchObject({
      vip: '198.18.7.7',
      description: 'ingress for web',
      backendInstanceIds: [ids.n1],
      healthCheckNodePort: 10256,
    });
    // externalTrafficPolicy Local: the Service's own health-check node port.
    await lb.ensureLoadBalancer(
      'kubernetes',
      { ...svc, externalTrafficPolicy: 'Local', healthCheckNodePort: 32001 },
      keptList(nodes),
    );
    expect(lbs()[0]!.healthCheckNodePort).toBe(32001);
  });

  it.each<[string, Partial<Service>, string]>([
    ['a bad VIP', { annotations: { [`${A}vip`]: '1.2.3' } }, `annotation ${A}vip: "1.2.3" is not an IPv4 address`],
    ['a bad loadBalancerIP', { loadBalancerIP: 'fd00::1' }, 'spec.loadBalancerIP: "fd00::1" is not an IPv4 address'],
    ['differing VIPs', { loadBalancerIP: '198.18.0.9', annotations: { [`${A}vip`]: '198.18.0.8' } }, 'differ'],
    [
      'a bad selector',
      { annotations: { [`${A}backend-label-selector`]: 'role!=x' } },
      `annotation ${A}backend-label-selector: "role!=x"`,
    ],
    ['an empty selector term', { annotations: { [`${A}backend-label-selector`]: 'a=b,' } }, 'an empty requirement'],
    [
      'a bad health-check port',
      { annotations: { [`${A}health-check-port`]: '70000' } },
      `${A}health-check-port: "70000" is not a port`,
    ],
    ['a long description', { annotations: { [`${A}description`]: 'd'.repeat(256) } }, 'longer than 255'],
    ['an unknown devcloud annotation', { annotations: { [`${A}vpi`]: '1.2.3.4' } }, `unknown annotation ${A}vpi`],
    [
      'a port without nodePort',
      { ports: [{ name: '', protocol: 'TCP', port: 80, nodePort: 0, targetPort: '80', appProtocol: '' }] },
      'spec.ports[0] has no nodePort',
    ],
    ['an IPv6-only Service', { ipFamilies: ['IPv6'] }, 'IPv4 only'],
    ['a bad source range', { loadBalancerSourceRanges: ['10.0.0.0/33'] }, 'spec.loadBalancerSourceRanges:'],
    ['a VIP outside the pool', { loadBalancerIP: '192.0.2.1' }, 'spec.loadBalancerIP 192.0.2.1:'],
  ])('rejects %s as Invalid, naming it', async (_what, overrides, message) => {
    const err = await failure(
      provider.loadBalancer()!.ensureLoadBalancer('kubernetes', service(overrides), keptList([])),
    );
    expect(err.code).toBe('Invalid');
    expect(err.message).toContain(message);
    expect(lbs()).toHaveLength(0);
  });

  it('a VIP held by another LB, or a changed VIP, is Invalid', async () => {
    const lb = provider.loadBalancer()!;
    const first = await lb.ensureLoadBalancer('kubernetes', service(), keptList([]));
    const vip = first.ingress[0]!.ip;
    const taken = await failure(
      lb.ensureLoadBalancer('kubernetes', service({ name: 'b', loadBalancerIP: vip }), keptList([])),
    );
    expect(taken).toMatchObject({ code: 'Invalid' });
    expect(taken.message).toContain(`spec.loadBalancerIP ${vip}`);
    const changed = await failure(
      lb.ensureLoadBalancer('kubernetes', service({ loadBalancerIP: '198.18.9.9' }), keptList([])),
    );
    expect(changed.code).toBe('Invalid');
    expect(changed.message).toContain('a VIP cannot change');
  });

  it('maps a throttled create to Retry with Retry-After; nothing is created', async () => {
    env.cloud.setKnobs({ failNext: [{ kind: 'createLoadBalancer', count: 1, status: 429 }], retryAfterSeconds: 3 });
    const err = await failure(provider.loadBalancer()!.ensureLoadBalancer('kubernetes', service(), keptList([])));
    expect(err).toMatchObject({ code: 'Retry', retryAfterSeconds: 3 });
    expect(lbs()).toHaveLength(0);
  });

  it('names: sanitized, at most 63 characters, long ones cut with a hash of the full name', async () => {
    const lb = provider.loadBalancer()!;
    const name = (cluster: string, svc: Partial<Service>) => lb.getLoadBalancerName(cluster, service(svc));
    expect(await name('Prod_EU.1', { namespace: 'team-a' })).toBe('prod-eu-1-team-a-web');
    const ns = 'n'.repeat(63);
    const long1 = await name('kubernetes', { namespace: ns, name: `${'s'.repeat(60)}-one` });
    const long2 = await name('kubernetes', { namespace: ns, name: `${'s'.repeat(60)}-two` });
    for (const n of [long1, long2]) expect(n).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
    expect(long1).not.toBe(long2);
    const hash = fnv1a64(`kubernetes/${ns}/${'s'.repeat(60)}-one`)
      .toString(16)
      .padStart(16, '0')
      .slice(0, 10);
    expect(long1).toBe(`kubernetes-${'n'.repeat(41)}-${hash}`);
    expect(await name('kubernetes', { namespace: ns, name: `${'s'.repeat(60)}-one` })).toBe(long1);
  });
});

describe('devcloud plugin: routes', () => {
  const route = (targetNode: string, destinationCIDR: string) => ({
    name: '',
    targetNode,
    targetNodeAddresses: [],
    destinationCIDR,
    blackhole: false,
  });

  it('creates, lists per cluster, is idempotent, and deletes (twice)', async () => {
    const routes = provider.routes()!;
    await routes.createRoute('kubernetes', 'uid-n1', route('n1', '10.244.1.0/24'));
    await routes.createRoute('kubernetes', 'uid-n1', route('n1', '10.244.1.0/24'));
    await routes.createRoute('kubernetes', 'uid-n1', route('n1', 'fd00:10:244:1::/64')); // dual-stack: same hint
    await routes.createRoute('blue', 'uid-n2', route('n2', '10.245.2.0/24'));
    const listed = await routes.listRoutes('kubernetes');
    expect(listed.map((r) => [r.destinationCIDR, r.targetNode, r.blackhole])).toEqual(
      expect.arrayContaining([
        ['10.244.1.0/24', 'n1', false],
        ['fd00:10:244:1::/64', 'n1', false],
      ]),
    );
    expect(listed).toHaveLength(2);
    for (const r of listed) expect(r.name).toMatch(/^kubernetes-uid-n1-[0-9a-f]{8}$/);
    expect((await routes.listRoutes('blue')).map((r) => r.targetNode)).toEqual(['n2']);
    await routes.deleteRoute('kubernetes', listed[0]!);
    await routes.deleteRoute('kubernetes', listed[0]!);
    expect(await routes.listRoutes('kubernetes')).toHaveLength(1);
  });

  it('passes blackhole through, finds the node of an untagged route, and refuses an unknown node', async () => {
    const routes = provider.routes()!;
    const gone = env.cloud.addInstance({ name: 'gone' });
    await routes.createRoute('kubernetes', 'uid-gone', route('gone', '10.244.9.0/24'));
    env.cloud.terminateInstance(gone.id);
    await cloudApi(env, 'POST', '/routes', {
      name: 'by-hand',
      destinationCidr: '10.244.3.0/24',
      targetInstanceId: ids.n3,
      tags: { 'k8s-cluster': 'kubernetes' },
    });
    const listed = await routes.listRoutes('kubernetes');
    expect(listed.map((r) => [r.name, r.targetNode, r.blackhole]).sort()).toEqual([
      ['by-hand', 'n3', false],
      [expect.stringMatching(/^kubernetes-uid-gone-/), 'gone', true],
    ]);
    const err = await failure(routes.createRoute('kubernetes', 'uid-x', route('nobody', '10.244.4.0/24')));
    expect(err.code).toBe('InstanceNotFound');
    expect(err.message).toContain('nobody');
  });
});

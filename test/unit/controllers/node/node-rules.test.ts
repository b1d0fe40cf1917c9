import { describe, expect, it } from 'vitest';
import {
  desiredNodeAddresses,
  nodeAddressesChanged,
  preferProvidedNodeIPs,
  ProvidedNodeIPError,
} from '../../../../host/src/controllers/node/addresses.ts';
import {
  applyInitialization,
  hasCloudTaint,
  planInitialization,
} from '../../../../host/src/controllers/node/initialization.ts';
import { betaToGALabels } from '../../../../host/src/controllers/node/labels.ts';
import { parseNodeIPAnnotation } from '../../../../host/src/controllers/node/node-ip.ts';
import type { NodeLike } from '../../../../host/src/controllers/node/node-shape.ts';
import type { InstanceMetadata } from '../../../../host/src/plugin/abi/index.ts';

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

function meta(overrides: Partial<InstanceMetadata> = {}): InstanceMetadata {
  return {
    providerID: 'devcloud://i-1',
    instanceType: 'm1.small',
    nodeAddresses: [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
    ],
    zone: 'zone-a',
    region: 'region-1',
    additionalLabels: {},
    ...overrides,
  };
}

function node(overrides: NodeLike = {}): NodeLike {
  return {
    metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' }, annotations: {}, ...overrides.metadata },
    spec: { taints: [TAINT, { key: 'other', effect: 'NoExecute' }], ...overrides.spec },
    status: { addresses: [{ type: 'Hostname', address: 'n1.local' }], ...overrides.status },
  };
}

describe('initialization plan', () => {
  it('sets providerID, instance type, zone and region labels (GA and beta)', () => {
    const plan = planInitialization(node(), meta());
    expect(plan.providerID).toBe('devcloud://i-1');
    expect(plan.labels).toEqual({
      'node.kubernetes.io/instance-type': 'm1.small',
      'beta.kubernetes.io/instance-type': 'm1.small',
      'topology.kubernetes.io/zone': 'zone-a',
      'failure-domain.beta.kubernetes.io/zone': 'zone-a',
      'topology.kubernetes.io/region': 'region-1',
      'failure-domain.beta.kubernetes.io/region': 'region-1',
    });
  });

  it('writes no label for an empty instance type, zone or region', () => {
    const plan = planInitialization(node(), meta({ instanceType: '', zone: '', region: '' }));
    expect(plan.labels).toEqual({});
  });

  it('keeps an existing spec.providerID and falls back to it when the cloud answers none', () => {
    expect(planInitialization(node({ spec: { providerID: 'devcloud://old' } }), meta()).providerID).toBeUndefined();
    expect(
      planInitialization(node({ spec: { providerID: 'devcloud://old' } }), meta({ providerID: '' })),
    ).toMatchObject({
      labels: expect.any(Object),
    });
    expect(() => planInitialization(node(), meta({ providerID: '' }))).toThrow(/empty providerID/);
  });

  it('filters additional labels: reserved domains dropped, existing keys never overwritten', () => {
    const plan = planInitialization(
      node({ metadata: { labels: { team: 'a' } } }),
      meta({
        additionalLabels: {
          team: 'b',
          'devcloud.example/pool': 'gpu',
          'kubernetes.io/role': 'x',
          'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
          'sub.k8s.io/thing': 'y',
          'k8s.io.example/ok': 'z',
        },
      }),
    );
    expect(plan.labels['devcloud.example/pool']).toBe('gpu');
    expect(plan.labels['k8s.io.example/ok']).toBe('z');
    expect(plan.labels.team).toBeUndefined();
    expect(plan.droppedLabels.map((d) => d.key).sort()).toEqual([
      'kubernetes.io/role',
      'node.kubernetes.io/exclude-from-external-load-balancers',
      'sub.k8s.io/thing',
      'team',
    ]);
  });

  it('refuses a provided node IP the cloud does not know', () => {
    const n = node({ metadata: { annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' } } });
    expect(() => planInitialization(n, meta())).toThrow(ProvidedNodeIPError);
    expect(() => planInitialization(n, meta())).toThrow('matches ip: 10.9.9.9');
    const ok = node({ metadata: { annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.6' } } });
    expect(() => planInitialization(ok, meta())).not.toThrow();
    // Upstream checks it even when the cloud answers no addresses at all.
    expect(() => planInitialization(ok, meta({ nodeAddresses: [] }))).toThrow('matches ip: 10.0.0.6');
  });

  it('applies the plan: taint removed, labels merged, other taints kept', () => {
    const n = node();
    expect(hasCloudTaint(n)).toBe(true);
    const applied = applyInitialization(n, planInitialization(n, meta()));
    expect(hasCloudTaint(applied)).toBe(false);
    expect(applied.spec?.taints).toEqual([{ key: 'other', effect: 'NoExecute' }]);
    expect(applied.spec?.providerID).toBe('devcloud://i-1');
    expect(applied.metadata?.labels?.['kubernetes.io/hostname']).toBe('n1');
    expect(applied.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('zone-a');
    expect(n.spec?.taints).toHaveLength(2); // input not mutated
  });
});

describe('beta to GA labels', () => {
  it('copies beta labels to GA and repairs a GA label that disagrees', () => {
    expect(
      betaToGALabels({
        'failure-domain.beta.kubernetes.io/zone': 'z1',
        'failure-domain.beta.kubernetes.io/region': 'r1',
        'topology.kubernetes.io/region': 'r0',
        'beta.kubernetes.io/instance-type': 't1',
        'node.kubernetes.io/instance-type': 't1',
      }),
    ).toEqual({ 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' });
    expect(betaToGALabels({ 'topology.kubernetes.io/zone': 'z1' })).toEqual({});
  });
});

describe('node addresses', () => {
  it('keep the kubelet Hostname when the cloud has none', () => {
    expect(desiredNodeAddresses(node(), meta().nodeAddresses)).toEqual([
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
      { type: 'Hostname', address: 'n1.local' },
    ]);
    const cloudHostname = [...meta().nodeAddresses, { type: 'Hostname' as const, address: 'cloud-name' }];
    expect(desiredNodeAddresses(node(), cloudHostname)?.filter((a) => a.type === 'Hostname')).toEqual([
      { type: 'Hostname', address: 'cloud-name' },
    ]);
  });

  it('put the provided node IP first and drop other addresses of its type', () => {
    const n = node({ metadata: { annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.6' } } });
    expect(desiredNodeAddresses(n, meta().nodeAddresses)).toEqual([
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
      { type: 'Hostname', address: 'n1.local' },
    ]);
  });

  it('handle dual-stack provided IPs and equal IPv6 spellings', () => {
    const addresses = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: 'fd00::5' },
      { type: 'InternalIP', address: '10.0.0.7' },
      { type: 'Hostname', address: 'h' },
    ];
    const ips = (text: string) => parseNodeIPAnnotation(text);
    expect(preferProvidedNodeIPs(ips('fd00:0::5,10.0.0.5'), addresses)).toEqual([
      { type: 'InternalIP', address: 'fd00::5' },
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'h' },
    ]);
    expect(() => preferProvidedNodeIPs(ips('10.0.0.5,fd00::9'), addresses)).toThrow('matches ip: fd00::9');
  });

  it('leave addresses alone when the cloud answers none, and refuse a malformed annotation', () => {
    expect(desiredNodeAddresses(node(), [])).toBeUndefined();
    const bad = node({ metadata: { annotations: { 'alpha.kubernetes.io/provided-node-ip': 'not-an-ip' } } });
    expect(() => desiredNodeAddresses(bad, meta().nodeAddresses)).toThrow(/could not parse "not-an-ip"/);
  });

  it('detect changes as upstream: order across types does not count, order within a type does', () => {
    const a = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'h' },
    ];
    expect(nodeAddressesChanged(a, [...a].reverse())).toBe(false);
    expect(nodeAddressesChanged(a, a)).toBe(false);
    expect(nodeAddressesChanged(a, [a[0]!])).toBe(true);
    expect(nodeAddressesChanged(a, [a[0]!, { type: 'Hostname', address: 'h2' }])).toBe(true);
    const two = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
    ];
    expect(nodeAddressesChanged(two, [...two].reverse())).toBe(true);
    // Upstream compares with the last address of each type: two of one type always read as a change.
    expect(nodeAddressesChanged(two, two)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { toABINode, toABIService } from '../../../../host/src/controllers/convert.ts';
import {
  loadBalancerStatusEqual,
  loggableNodeNames,
  needsCleanup,
  needsUpdate,
  nodeChangeAffectsLoadBalancers,
  nodeIncludedInLoadBalancers,
  wantsLoadBalancer,
} from '../../../../host/src/controllers/service/rules.ts';
import type { WireNode, WireService } from '../../../../host/src/controllers/framework/wire-objects.ts';

function svc(spec: WireService['spec'] = {}, metadata: WireService['metadata'] = {}): WireService {
  return {
    metadata: { name: 's', namespace: 'ns', uid: '3f2a9c1e-0b7d-4e1f-9a2b-1234567890ab', ...metadata },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }], ...spec },
  };
}

function node(name: string, extra: Partial<WireNode> = {}): WireNode {
  return { metadata: { name, ...extra.metadata }, spec: { providerID: `devcloud://${name}`, ...extra.spec } };
}

describe('which Services the controller serves', () => {
  it('LoadBalancer without class only, unless the class is claimed', () => {
    expect(wantsLoadBalancer(svc())).toBe(true);
    expect(wantsLoadBalancer(svc({ type: 'ClusterIP' }))).toBe(false);
    expect(wantsLoadBalancer(svc({ loadBalancerClass: 'example.com/lb' }))).toBe(false);
    expect(
      wantsLoadBalancer(svc({ loadBalancerClass: 'example.com/lb' }), {
        classes: new Set(['example.com/lb']),
        classless: true,
      }),
    ).toBe(true);
  });

  it('leaves classless Services alone when the default provider serves no load balancers', () => {
    const served = { classes: new Set(['example.com/lb']), classless: false };
    expect(wantsLoadBalancer(svc(), served)).toBe(false);
    expect(wantsLoadBalancer(svc({ loadBalancerClass: 'example.com/lb' }), served)).toBe(true);
    // Gaining the class is a change to act on; an update of a classless one is not.
    expect(needsUpdate(svc(), svc({ loadBalancerClass: 'example.com/lb' }), served)).toBe('type');
    expect(needsUpdate(svc(), svc({ ports: [] }), served)).toBeUndefined();
  });

  it('needs cleanup only with our finalizer and a deletion or a type change', () => {
    const fin = { finalizers: ['service.kubernetes.io/load-balancer-cleanup'] };
    expect(needsCleanup(svc({}, fin))).toBe(false);
    expect(needsCleanup(svc({}, { ...fin, deletionTimestamp: new Date().toISOString() }))).toBe(true);
    expect(needsCleanup(svc({ type: 'ClusterIP' }, fin))).toBe(true);
    expect(needsCleanup(svc({ type: 'ClusterIP' }))).toBe(false);
  });

  it('does not look at the class to decide on cleanup (upstream)', () => {
    const fin = { finalizers: ['service.kubernetes.io/load-balancer-cleanup'] };
    const other = { loadBalancerClass: 'example.com/nobody' };
    expect(needsCleanup(svc(other, fin))).toBe(false);
    expect(needsCleanup(svc(other, { ...fin, deletionTimestamp: new Date().toISOString() }))).toBe(true);
    expect(needsCleanup(svc({ ...other, type: 'ClusterIP' }, fin))).toBe(true);
  });
});

describe('needsUpdate', () => {
  const base = svc({ loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16'] }, { annotations: { a: '1' } });
  it.each<[string, WireService]>([
    ['type', svc({ type: 'NodePort' })],
    ['loadBalancerSourceRanges', svc({ loadBalancerSourceRanges: ['10.0.0.0/8'] }, { annotations: { a: '1' } })],
    [
      'ports',
      { ...base, spec: { ...base.spec, ports: [{ name: 'http', protocol: 'TCP', port: 8080, nodePort: 30080 }] } },
    ],
    [
      'ports',
      { ...base, spec: { ...base.spec, ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30081 }] } },
    ],
    ['ports', { ...base, spec: { ...base.spec, ports: [{ name: 'h', protocol: 'TCP', port: 80, nodePort: 30080 }] } }],
    [
      'ports',
      {
        ...base,
        spec: {
          ...base.spec,
          ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080, appProtocol: 'h2c' }],
        },
      },
    ],
    ['sessionAffinity', { ...base, spec: { ...base.spec, sessionAffinity: 'ClientIP' } }],
    ['loadBalancerIP', { ...base, spec: { ...base.spec, loadBalancerIP: '203.0.113.9' } }],
    ['externalIPs', { ...base, spec: { ...base.spec, externalIPs: ['1.2.3.4'] } }],
    ['annotations', { ...base, metadata: { ...base.metadata, annotations: { a: '2' } } }],
    ['uid', { ...base, metadata: { ...base.metadata, uid: 'other' } }],
    ['externalTrafficPolicy', { ...base, spec: { ...base.spec, externalTrafficPolicy: 'Local' } }],
    ['healthCheckNodePort', { ...base, spec: { ...base.spec, healthCheckNodePort: 32000 } }],
    ['ipFamilies', { ...base, spec: { ...base.spec, ipFamilies: ['IPv4', 'IPv6'] } }],
  ])('sees a change of %s', (field, changed) => {
    expect(needsUpdate(base, changed)).toBe(field);
  });

  it('ignores changes that do not matter to the load balancer', () => {
    expect(
      needsUpdate(base, { ...base, metadata: { ...base.metadata, labels: { x: 'y' }, resourceVersion: '9' } }),
    ).toBeUndefined();
    expect(needsUpdate(base, { ...base, status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } })).toBeUndefined();
  });

  it('sees a reorder of the source ranges as a change (upstream compares the lists as they are)', () => {
    const reordered = { ...base, spec: { ...base.spec, loadBalancerSourceRanges: ['192.168.0.0/16', '10.0.0.0/8'] } };
    expect(needsUpdate(base, reordered)).toBe('loadBalancerSourceRanges');
    const same = { ...base, spec: { ...base.spec, loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16'] } };
    expect(needsUpdate(base, same)).toBeUndefined();
  });
});

describe('load balancer node set', () => {
  it('excludes deleting, excluded and autoscaler-doomed nodes; Ready is not checked', () => {
    expect(nodeIncludedInLoadBalancers(node('a'))).toBe(true);
    expect(
      nodeIncludedInLoadBalancers(node('a', { metadata: { name: 'a', deletionTimestamp: new Date().toISOString() } })),
    ).toBe(false);
    const label = (v: string) =>
      node('a', { metadata: { name: 'a', labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': v } } });
    expect(nodeIncludedInLoadBalancers(label(''))).toBe(false);
    expect(nodeIncludedInLoadBalancers(label('true'))).toBe(false);
    expect(nodeIncludedInLoadBalancers(label('false'))).toBe(true);
    // strconv.ParseBool's other spellings: false ones include, true ones exclude, anything else excludes.
    for (const v of ['0', 'f', 'F', 'FALSE', 'False']) expect(nodeIncludedInLoadBalancers(label(v)), v).toBe(true);
    for (const v of ['1', 't', 'T', 'TRUE', 'True']) expect(nodeIncludedInLoadBalancers(label(v)), v).toBe(false);
    for (const v of ['no', 'fAlse', ' false', 'false ', 'off', '00']) {
      expect(nodeIncludedInLoadBalancers(label(v)), v).toBe(false);
    }
    const doomed = node('a', { spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } });
    expect(nodeIncludedInLoadBalancers(doomed)).toBe(false);
    const notReady = node('a', { status: { conditions: [{ type: 'Ready', status: 'False' }] } } as Partial<WireNode>);
    expect(nodeIncludedInLoadBalancers(notReady)).toBe(true);
  });

  it('re-checks load balancers when exclusion or providerID changes, not for other updates', () => {
    const a = node('a');
    expect(nodeChangeAffectsLoadBalancers(a, { ...a, metadata: { name: 'a', labels: { x: 'y' } } })).toBe(false);
    expect(nodeChangeAffectsLoadBalancers(a, { ...a, spec: { providerID: 'devcloud://other' } })).toBe(true);
    const excluded = {
      ...a,
      metadata: { name: 'a', labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } },
    };
    expect(nodeChangeAffectsLoadBalancers(a, excluded)).toBe(true);
  });

  it('does not re-check load balancers for the autoscaler taint or a deletionTimestamp (upstream)', () => {
    const a = node('a');
    const doomed = node('a', { spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } });
    const deleting = node('a', { metadata: { name: 'a', deletionTimestamp: new Date().toISOString() } });
    expect(nodeChangeAffectsLoadBalancers(a, doomed)).toBe(false);
    expect(nodeChangeAffectsLoadBalancers(doomed, a)).toBe(false);
    expect(nodeChangeAffectsLoadBalancers(a, deleting)).toBe(false);
    // The node set still leaves them out whenever a sync happens for another reason.
    expect(nodeIncludedInLoadBalancers(doomed)).toBe(false);
    expect(nodeIncludedInLoadBalancers(deleting)).toBe(false);
  });
});

describe('names, status and conversion', () => {
  it('compares load balancer status semantically', () => {
    expect(
      loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1' }] }, { ingress: [{ ip: '1.1.1.1', hostname: '' }] }),
    ).toBe(true);
    expect(loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1' }] }, { ingress: [{ ip: '1.1.1.2' }] })).toBe(false);
    expect(loadBalancerStatusEqual(undefined, { ingress: [] })).toBe(true);
    // The apiserver's default: an ingress with an ip gets ipMode VIP.
    expect(
      loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1', ipMode: 'VIP' }] }, { ingress: [{ ip: '1.1.1.1' }] }),
    ).toBe(true);
    expect(
      loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1', ipMode: 'Proxy' }] }, { ingress: [{ ip: '1.1.1.1' }] }),
    ).toBe(false);
  });

  it('trims objects to the ABI shapes', () => {
    const s = toABIService(
      svc({ ports: [{ port: 443, targetPort: 'https' as unknown as number }] }, { managedFields: [{}] }),
    );
    expect(s).toEqual({
      name: 's',
      namespace: 'ns',
      uid: '3f2a9c1e-0b7d-4e1f-9a2b-1234567890ab',
      labels: {},
      annotations: {},
      ports: [{ name: '', protocol: 'TCP', port: 443, nodePort: 0, targetPort: 'https', appProtocol: '' }],
      loadBalancerIP: '',
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: '',
      healthCheckNodePort: 0,
      ipFamilies: [],
      ipFamilyPolicy: '',
      loadBalancerClass: '',
      sessionAffinity: '',
      externalIPs: [],
    });
    expect(
      toABINode({
        metadata: { name: 'n', uid: 'u' },
        status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
      }),
    ).toEqual({
      name: 'n',
      uid: 'u',
      providerID: '',
      labels: {},
      annotations: {},
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    });
  });
});

describe('loggableNodeNames', () => {
  it('sorts the first 20 names, drops repeats and counts the rest, as upstream', () => {
    expect(loggableNodeNames(['c', 'a', 'b'])).toEqual(['a', 'b', 'c']);
    expect(loggableNodeNames([])).toEqual([]);
    const names = Array.from({ length: 23 }, (_, i) => `n${String(22 - i).padStart(2, '0')}`);
    const shown = loggableNodeNames(names);
    expect(shown).toHaveLength(21);
    expect(shown[0]).toBe('n03');
    expect(shown[19]).toBe('n22');
    expect(shown[20]).toBe('<3 more>');
  });
});

import type { CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ccmEventReasons, ccmEvents, isApiserverEvent } from '../../support/parity/events.ts';

const event = (reason: string, component: { reportingComponent?: string; source?: string }): CoreV1Event => ({
  metadata: { name: reason },
  involvedObject: { kind: 'Service', name: 'web' },
  reason,
  ...(component.reportingComponent === undefined ? {} : { reportingComponent: component.reportingComponent }),
  ...(component.source === undefined ? {} : { source: { component: component.source } }),
});

describe('parity Events', () => {
  it("leaves out the apiserver's repair controllers, by reporting component or by source", () => {
    const repair = event('ClusterIPNotAllocated', { source: 'ipallocator-repair-controller' });
    const ports = event('PortNotAllocated', { reportingComponent: 'portallocator-repair-controller' });
    const apiserver = event('Whatever', { source: 'kube-apiserver' });
    const ccm = event('EnsuredLoadBalancer', { source: 'service-controller' });
    // An empty reportingComponent (events.k8s.io/v1 leaves it unset on core Events) falls back to the source.
    const unset = event('EnsuringLoadBalancer', { reportingComponent: '', source: 'service-controller' });
    expect([repair, ports, apiserver].map(isApiserverEvent)).toEqual([true, true, true]);
    expect(ccmEvents([repair, ccm, ports, unset, apiserver]).map((e) => e.reason)).toEqual([
      'EnsuredLoadBalancer',
      'EnsuringLoadBalancer',
    ]);
    // Each reason once, sorted, whatever the order and repeats of the list.
    expect(ccmEventReasons([unset, repair, ccm, unset])).toEqual(['EnsuredLoadBalancer', 'EnsuringLoadBalancer']);
  });
});

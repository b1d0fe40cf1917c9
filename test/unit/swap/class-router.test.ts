// The class-routing balancer: each Service goes to the provider of its loadBalancerClass, and the node-list hint goes
// to every provider that serves load balancers (each cuts the list to its own plugin's fields).
import { describe, expect, it } from 'vitest';
import { keptList, type Node } from '../../../host/src/abi/index.ts';
import { type LoadBalancer, prepareNodes, withNodeListPreparer } from '../../../host/src/cloudprovider/index.ts';
import { classRoutingBalancer } from '../../../host/src/plugin/swap/class-router.ts';
import { fakeProvider, service } from './fakes.ts';

function preparing(label: string, prepared: string[]): LoadBalancer {
  const balancer = fakeProvider(label).provider.loadBalancer()!;
  return withNodeListPreparer(balancer, (nodes) => prepared.push(`${label}:${nodes.length}`));
}

describe('classRoutingBalancer', () => {
  it('sends each Service to the provider of its class, and refuses one no provider serves', async () => {
    const byDefault = fakeProvider('default');
    const internal = fakeProvider('internal');
    const router = classRoutingBalancer(
      byDefault.provider.loadBalancer(),
      new Map([['example.com/internal', internal.provider.loadBalancer()!]]),
    );
    await router.ensureLoadBalancer('k', service('a'), keptList([]));
    await router.ensureLoadBalancer('k', service('b', 'example.com/internal'), keptList([]));
    expect(byDefault.served).toEqual(['ensure a']);
    expect(internal.served).toEqual(['ensure b']);
    await expect(router.getLoadBalancer('k', service('c', 'other'))).rejects.toThrow(
      'no provider serves loadBalancerClass "other"',
    );
  });

  it('gives the node list to every provider that takes it, making no call', () => {
    const prepared: string[] = [];
    const plain = fakeProvider('plain');
    const router = classRoutingBalancer(
      preparing('default', prepared),
      new Map([
        ['a.example.com/lb', preparing('a', prepared)],
        ['b.example.com/lb', plain.provider.loadBalancer()!],
      ]),
    );
    const node: Node = { name: 'n', uid: 'u', providerID: 'p', labels: {}, annotations: {}, addresses: [] };
    prepareNodes(router, keptList([node]));
    expect(prepared).toEqual(['default:1', 'a:1']);
    expect(plain.served).toEqual([]);
  });

  it('takes the hint without a default provider', () => {
    const prepared: string[] = [];
    const router = classRoutingBalancer(undefined, new Map([['a.example.com/lb', preparing('a', prepared)]]));
    prepareNodes(router, keptList<Node>([]));
    expect(prepared).toEqual(['a:0']);
  });
});

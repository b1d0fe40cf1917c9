// One LoadBalancer for the service controller that sends each Service to the provider serving its
// loadBalancerClass: no class -> the default provider, a configured class -> that class's provider. The controller
// is told the configured classes, so Services of any other class never reach this router (upstream leaves them
// to whichever controller implements that class).
import {
  InternalError,
  type LoadBalancer,
  type NodeListPreparer,
  prepareNodes,
  type Service,
} from '../../cloudprovider/index.ts';

export function classRoutingBalancer(
  byDefault: LoadBalancer | undefined,
  byClass: ReadonlyMap<string, LoadBalancer>,
): LoadBalancer & NodeListPreparer {
  const pick = (service: Service): LoadBalancer => {
    const cls = service.loadBalancerClass;
    const balancer = cls === '' ? byDefault : byClass.get(cls);
    if (balancer === undefined) {
      throw new InternalError(
        cls === ''
          ? 'the default provider does not serve load balancers'
          : `no provider serves loadBalancerClass "${cls}"`,
      );
    }
    return balancer;
  };
  return {
    // async: an unroutable Service must reject, not throw synchronously at the caller.
    getLoadBalancer: async (cluster, svc) => pick(svc).getLoadBalancer(cluster, svc),
    getLoadBalancerName: async (cluster, svc) => pick(svc).getLoadBalancerName(cluster, svc),
    ensureLoadBalancer: async (cluster, svc, nodes) => pick(svc).ensureLoadBalancer(cluster, svc, nodes),
    updateLoadBalancer: async (cluster, svc, nodes) => pick(svc).updateLoadBalancer(cluster, svc, nodes),
    ensureLoadBalancerDeleted: async (cluster, svc) => pick(svc).ensureLoadBalancerDeleted(cluster, svc),
    prepareNodes: (nodes) => {
      if (byDefault !== undefined) prepareNodes(byDefault, nodes);
      for (const balancer of byClass.values()) prepareNodes(balancer, nodes);
    },
  };
}

// ABI objects with every field a caller does not name at its default, so the conformance fixture, wasm-ccm/testing
// (a vendor's unit tests) and the repository's tests state only what they care about: testNode({ name: 'node-1' }),
// testService({ name: 'web', annotations: {...} }).
import { randomUUID } from 'node:crypto';
import type { Node, Service, ServicePort } from '../abi/index.ts';

/** A Node as the host sends it; `uid` defaults to a fresh UUID, everything else to empty. */
export function testNode(fields: Partial<Node> & Pick<Node, 'name'>): Node {
  return { uid: randomUUID(), providerID: '', labels: {}, annotations: {}, addresses: [], ...fields };
}

/** A TCP port `port` -> `nodePort`, as a LoadBalancer Service has it. */
export function testPort(port: number, nodePort: number, fields: Partial<ServicePort> = {}): ServicePort {
  return { name: '', protocol: 'TCP', port, nodePort, targetPort: String(port), appProtocol: '', ...fields };
}

/** A LoadBalancer Service in `default` with one port (80 -> 30080) and a fresh UID unless given. */
export function testService(fields: Partial<Service> & Pick<Service, 'name'>): Service {
  return {
    namespace: 'default',
    uid: randomUUID(),
    labels: {},
    annotations: {},
    ports: [testPort(80, 30080)],
    loadBalancerIP: '',
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: 'Cluster',
    healthCheckNodePort: 0,
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    loadBalancerClass: '',
    sessionAffinity: 'None',
    externalIPs: [],
    ...fields,
  };
}

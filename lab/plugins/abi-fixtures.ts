// ABI objects (plugin-sdk/abi/v1.json) for tests and benchmarks: a complete value with every field, so each caller
// states only what it cares about.
import { testService } from '../../host/src/conformance/index.ts';
import type { Node, Service } from '../../host/src/abi/index.ts';

/** Service "default/web" of type LoadBalancer with one HTTP port; `overrides` replace whole fields. */
export function abiService(overrides: Partial<Service> = {}): Service {
  return testService({
    name: 'web',
    uid: '6d1c1f1e-2b3c-4d5e-6f7a-8b9c0d1e2f30',
    ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080, targetPort: '8080', appProtocol: '' }],
    ...overrides,
  });
}

/** A node with no addresses or annotations. */
export function abiNode(name: string, providerID = '', labels: Record<string, string> = {}): Node {
  return { name, uid: `uid-${name}`, providerID, labels, annotations: {}, addresses: [] };
}

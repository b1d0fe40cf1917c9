// The conformance fixture: what the vendor's cloud holds for the run (nodes whose instances run, are stopped, or do
// not exist), the cluster name, and optionally the Service, node sets and route the load-balancer and route checks
// use. Read strictly (unknown fields are errors, with their path) so a typo never silently turns a check off.
import { randomUUID } from 'node:crypto';
import type { Node, NodeAddress, NodeAddressType, Service, ServicePort } from '../abi/index.ts';
import { errorMessage } from '../util/error-message.ts';
import { testService } from './abi-objects.ts';
import {
  type BackendProbe,
  type BadAnnotation,
  type LoadBalancerProbe,
  parseBackendProbe,
  parseBadAnnotation,
  parseFiltered,
  parseLoadBalancerProbe,
  parseUnavailable,
} from './fixture-backends.ts';
import { fail, FixtureError, isObject, list, only, str, stringMap } from './fixture-fields.ts';

export { FixtureError } from './fixture-fields.ts';

export interface Fixture {
  clusterName: string;
  running: Node[];
  stopped: Node[];
  missing: Node[];
  /** The Service the load-balancer checks ensure, update and delete (a fresh UID every run). */
  service: Service;
  /** Backends of the first ensure, and of the update (a different set). */
  initialNodes: Node[];
  updatedNodes: Node[];
  route: { destinationCIDR: string; targetNode: Node };
  /** Nodes of the sets the provider must leave out of the backends, with the reason the fixture gives. */
  filtered: ReadonlyMap<string, string>;
  /** How the kit reads the load balancer's backends from the cloud; undefined: the backend checks cannot run. */
  backendProbe: BackendProbe | undefined;
  /** How the kit lists the cloud's load balancers; undefined: the load-balancer count checks cannot run. */
  loadBalancerProbe: LoadBalancerProbe | undefined;
  /**
   * Why the vendor's cloud cannot be probed (`{unavailable: reason}` in place of a probe): those checks are skipped
   * with the reason. A probe neither given nor excused leaves the run INCOMPLETE.
   */
  notProbed: { backends?: string; loadBalancers?: string };
  /** An annotation value ensureLoadBalancer must refuse as Invalid, naming the key, without touching the cloud. */
  badAnnotation: BadAnnotation | undefined;
}

function parseNode(value: unknown, path: string): Node {
  if (!isObject(value)) fail(path, 'must be {name, providerID?, uid?, labels?, annotations?, addresses?, systemUUID?}');
  only(value, path, ['name', 'providerID', 'uid', 'labels', 'annotations', 'addresses', 'systemUUID']);
  const name = str(value, 'name', path);
  // status.nodeInfo.systemUUID, as a kubelet reports it: only when given, so a node without one is sent without it.
  const systemUUID = value.systemUUID === undefined ? {} : { systemUUID: str(value, 'systemUUID', path) };
  return {
    ...systemUUID,
    name,
    uid: str(value, 'uid', path, randomUUID()),
    providerID: value.providerID === undefined ? '' : str(value, 'providerID', path),
    labels: stringMap(value, 'labels', path),
    annotations: stringMap(value, 'annotations', path),
    addresses: list(value, 'addresses', path).map((a, i) => parseAddress(a, `${path}.addresses[${i}]`)),
  };
}

const ADDRESS_TYPES: readonly string[] = [
  'Hostname',
  'ExternalIP',
  'InternalIP',
  'ExternalDNS',
  'InternalDNS',
] satisfies NodeAddressType[];

function parseAddress(value: unknown, path: string): NodeAddress {
  if (!isObject(value)) fail(path, 'must be {type, address}');
  only(value, path, ['type', 'address']);
  const type = str(value, 'type', path);
  if (!ADDRESS_TYPES.includes(type)) fail(`${path}.type`, `must be one of ${ADDRESS_TYPES.join(', ')}`);
  return { type: type as NodeAddressType, address: str(value, 'address', path) };
}

function parsePort(value: unknown, path: string): ServicePort {
  if (!isObject(value)) fail(path, 'must be {port, nodePort, protocol?, name?}');
  only(value, path, ['name', 'port', 'nodePort', 'protocol']);
  const num = (key: string): number => {
    const v = value[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) fail(`${path}.${key}`, 'must be 1..65535');
    return v;
  };
  const protocol = value.protocol ?? 'TCP';
  if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP')
    fail(`${path}.protocol`, 'must be TCP, UDP or SCTP');
  const port = num('port');
  return {
    name: value.name === undefined ? '' : str(value, 'name', path),
    protocol,
    port,
    nodePort: num('nodePort'),
    targetPort: String(port),
    appProtocol: '',
  };
}

function parseService(value: unknown, path: string): Service {
  const v = value === undefined ? {} : value;
  if (!isObject(v)) fail(path, 'must be a map');
  only(v, path, ['name', 'namespace', 'annotations', 'ports', 'loadBalancerSourceRanges', 'badAnnotation']);
  const ports = list(v, 'ports', path).map((p, i) => parsePort(p, `${path}.ports[${i}]`));
  const ranges = list(v, 'loadBalancerSourceRanges', path).map((r, i) => {
    if (typeof r !== 'string') fail(`${path}.loadBalancerSourceRanges[${i}]`, 'must be a CIDR string');
    return r;
  });
  return testService({
    name: str(v, 'name', path, 'wasm-ccm-conformance'),
    namespace: str(v, 'namespace', path, 'default'),
    annotations: stringMap(v, 'annotations', path),
    ports: ports.length > 0 ? ports : [parsePort({ name: 'http', port: 80, nodePort: 30080 }, `${path}.ports[0]`)],
    loadBalancerSourceRanges: ranges,
  });
}

type NodeByName = (name: unknown, path: string) => Node;

/** `nodeSets`: the backends of the first ensure and of the update, and the nodes the provider must leave out. */
function parseNodeSets(
  value: unknown,
  running: Node[],
  stopped: Node[],
  byName: NodeByName,
): { initialNodes: Node[]; updatedNodes: Node[]; filtered: Map<string, string> } {
  const sets = value === undefined ? {} : value;
  if (!isObject(sets)) fail('$.nodeSets', 'must be {initial: [names], updated: [names], filtered: [...]}');
  only(sets, '$.nodeSets', ['initial', 'updated', 'filtered']);
  const names = (key: string): Node[] =>
    list(sets, key, '$.nodeSets').map((n, i) => byName(n, `$.nodeSets.${key}[${i}]`));
  const initialNodes = sets.initial === undefined ? running : names('initial');
  // The default update drops a node (or adds the stopped ones when there is only one): either way the set changes.
  const defaultUpdate = initialNodes.length > 1 ? initialNodes.slice(0, -1) : [...initialNodes, ...stopped];
  const updatedNodes = sets.updated === undefined ? defaultUpdate : names('updated');
  const filtered = parseFiltered(sets, '$.nodeSets', (name, path) => byName(name, path).name);
  return { initialNodes, updatedNodes, filtered };
}

/** A Service the plugin never created: another name and UID, same namespace. */
export function strangerService(service: Service): Service {
  return { ...service, name: `${service.name}-never-created`, uid: randomUUID() };
}

export function parseFixture(doc: unknown): Fixture {
  if (!isObject(doc)) fail('$', 'must be a map');
  only(doc, '$', ['clusterName', 'nodes', 'service', 'nodeSets', 'route', 'backendProbe', 'loadBalancerProbe']);
  const clusterName = str(doc, 'clusterName', '$', 'kubernetes');
  const nodes = doc.nodes;
  if (!isObject(nodes)) fail('$.nodes', 'is required: {running: [...], stopped: [...], missing: [...]}');
  only(nodes, '$.nodes', ['running', 'stopped', 'missing']);
  const group = (key: string): Node[] =>
    list(nodes, key, '$.nodes').map((n, i) => parseNode(n, `$.nodes.${key}[${i}]`));
  const running = group('running');
  const stopped = group('stopped');
  const missing = group('missing');
  if (running.length === 0) fail('$.nodes.running', 'needs at least one node whose instance is running');
  const all = [...running, ...stopped, ...missing];
  const seen = new Set<string>();
  for (const n of all) {
    if (seen.has(n.name)) fail('$.nodes', `node name ${n.name} appears twice`);
    seen.add(n.name);
  }
  const existing = [...running, ...stopped];
  const byName: NodeByName = (name, path) => {
    const found = typeof name === 'string' ? existing.find((n) => n.name === name) : undefined;
    if (!found) fail(path, `${JSON.stringify(name)} is not a running or stopped node of the fixture`);
    return found;
  };

  const { initialNodes, updatedNodes, filtered } = parseNodeSets(doc.nodeSets, running, stopped, byName);

  const r = doc.route === undefined ? {} : doc.route;
  if (!isObject(r)) fail('$.route', 'must be {destinationCIDR, targetNode}');
  only(r, '$.route', ['destinationCIDR', 'targetNode']);
  const targetNode = r.targetNode === undefined ? running[0]! : byName(r.targetNode, '$.route.targetNode');

  const backendProbe = parseBackendProbe(doc.backendProbe, '$.backendProbe');
  if (backendProbe?.identity === 'address') {
    const unnamed = [...initialNodes, ...updatedNodes].find(
      (n) => !filtered.has(n.name) && !n.addresses.some((a) => a.type === backendProbe.addressType),
    );
    if (unnamed)
      fail('$.backendProbe.identity', `address: node ${unnamed.name} has no ${backendProbe.addressType} address`);
  }
  const service = isObject(doc.service) ? doc.service : {};
  const backendsUnavailable = parseUnavailable(doc.backendProbe, '$.backendProbe');
  const loadBalancersUnavailable = parseUnavailable(doc.loadBalancerProbe, '$.loadBalancerProbe');
  return {
    clusterName,
    running,
    stopped,
    missing,
    service: parseService(doc.service, '$.service'),
    initialNodes,
    updatedNodes,
    route: { destinationCIDR: str(r, 'destinationCIDR', '$.route', '10.250.0.0/24'), targetNode },
    filtered,
    backendProbe,
    loadBalancerProbe: parseLoadBalancerProbe(doc.loadBalancerProbe, '$.loadBalancerProbe'),
    notProbed: {
      ...(backendsUnavailable === undefined ? {} : { backends: backendsUnavailable }),
      ...(loadBalancersUnavailable === undefined ? {} : { loadBalancers: loadBalancersUnavailable }),
    },
    badAnnotation: parseBadAnnotation(service.badAnnotation, '$.service.badAnnotation'),
  };
}

/** Reads a fixture from JSON, or YAML when the name ends in .yaml/.yml. */
export async function loadFixtureText(text: string, fileName: string): Promise<Fixture> {
  let doc: unknown;
  try {
    if (/\.ya?ml$/i.test(fileName)) {
      // Loaded on demand: client-node is large, and JSON fixtures do not need it.
      const { loadYaml } = await import('@kubernetes/client-node');
      doc = loadYaml<unknown>(text);
    } else {
      doc = JSON.parse(text);
    }
  } catch (err) {
    throw new FixtureError(`fixture ${fileName} cannot be parsed: ${errorMessage(err)}`);
  }
  return parseFixture(doc);
}

// What the node controllers ask the cloud about a node, through InstancesV2 when the provider has it and
// through the legacy Instances (+ Zones) interface otherwise, as upstream's node and node-lifecycle
// controllers do. The *OfNodes forms ask about many nodes: one batched call when the provider has it (ABI 1.5, 1.6), else
// one call per node; each node's result is what the single-node form would have answered or thrown for it.
import {
  type InstanceMetadata,
  instanceMetadataOfEach,
  type InstanceStatus,
  instanceStatusOfEach,
  isInstanceNotFound,
  isNotImplemented,
  type Node,
  type NodeResult,
  NotImplementedError,
  type Provider,
} from '../../cloudprovider/index.ts';

/** upstream cloudprovider.GetInstanceProviderID: `<providerName>://<instanceID>`. */
async function legacyProviderID(provider: Provider, node: Node): Promise<string> {
  if (node.providerID !== '') return node.providerID;
  const instances = provider.instances();
  if (!instances) throw new NotImplementedError('the provider implements neither InstancesV2 nor Instances');
  const id = await instances.instanceID(node.name);
  return `${provider.providerName()}://${id}`;
}

export async function instanceMetadata(provider: Provider, node: Node): Promise<InstanceMetadata> {
  const v2 = provider.instancesV2();
  if (v2) return v2.instanceMetadata(node);
  const instances = provider.instances();
  if (!instances) throw new NotImplementedError('the provider implements neither InstancesV2 nor Instances');
  const providerID = await legacyProviderID(provider, node);
  const [instanceType, nodeAddresses] = await Promise.all([
    instances.instanceTypeByProviderID(providerID),
    instances.nodeAddressesByProviderID(providerID),
  ]);
  let zone = '';
  let region = '';
  const zones = provider.zones();
  if (zones) {
    const z = await zones.getZoneByProviderID(providerID);
    zone = z.failureDomain;
    region = z.region;
  }
  return { providerID, instanceType, nodeAddresses, zone, region, additionalLabels: {} };
}

/** False only when the cloud says the instance is gone; errors propagate (the caller logs and skips). */
export async function instanceExists(provider: Provider, node: Node): Promise<boolean> {
  const v2 = provider.instancesV2();
  if (v2) return v2.instanceExists(node);
  const instances = provider.instances();
  if (!instances) throw new NotImplementedError('the provider implements neither InstancesV2 nor Instances');
  let providerID: string;
  try {
    providerID = await legacyProviderID(provider, node);
  } catch (err) {
    if (isInstanceNotFound(err)) return false;
    throw err;
  }
  return instances.instanceExistsByProviderID(providerID);
}

/** A provider that cannot tell answers "not shut down" (NotImplemented is not an error here). */
export async function instanceShutdown(provider: Provider, node: Node): Promise<boolean> {
  try {
    const v2 = provider.instancesV2();
    if (v2) return await v2.instanceShutdown(node);
    const instances = provider.instances();
    if (!instances || node.providerID === '') return false;
    return await instances.instanceShutdownByProviderID(node.providerID);
  } catch (err) {
    if (isNotImplemented(err)) return false;
    throw err;
  }
}

async function eachLegacy<T>(nodes: readonly Node[], one: (node: Node) => Promise<T>): Promise<NodeResult<T>[]> {
  const results: NodeResult<T>[] = [];
  for (const node of nodes) {
    try {
      results.push({ ok: true, value: await one(node) });
    } catch (err) {
      results.push({ ok: false, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
  return results;
}

export function instanceMetadataOfNodes(
  provider: Provider,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<NodeResult<InstanceMetadata>[]> {
  const v2 = provider.instancesV2();
  if (v2) return instanceMetadataOfEach(v2, nodes, signal);
  return eachLegacy(nodes, (node) => instanceMetadata(provider, node));
}

/**
 * Each node's lifecycle answers (exists; shut down when it exists), as instanceExists and instanceShutdown would
 * answer: a provider that cannot tell whether an instance is shut down answers "not shut down".
 */
export async function instanceStatusOfNodes(
  provider: Provider,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<InstanceStatus[]> {
  const v2 = provider.instancesV2();
  if (v2) {
    const results = await instanceStatusOfEach(v2, nodes, signal);
    return results.map(({ exists, shutdown }) => ({
      exists,
      shutdown: !shutdown.ok && isNotImplemented(shutdown.error) ? { ok: true, value: false } : shutdown,
    }));
  }
  const exists = await eachLegacy(nodes, (node) => instanceExists(provider, node));
  const out: InstanceStatus[] = [];
  for (const [i, node] of nodes.entries()) {
    const e = exists[i]!;
    if (!e.ok || !e.value) out.push({ exists: e, shutdown: { ok: true, value: false } });
    else out.push({ exists: e, shutdown: (await eachLegacy([node], (n) => instanceShutdown(provider, n)))[0]! });
  }
  return out;
}

// What the node controllers ask the cloud about a node, through InstancesV2 when the provider has it and
// through the legacy Instances (+ Zones) interface otherwise, as upstream's node and node-lifecycle
// controllers do.
import {
  type InstanceMetadata,
  isInstanceNotFound,
  isNotImplemented,
  type Node,
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

// The capabilities one provider implements, and the Provider accessors over them, for providers that build each
// capability from a generated table (one factory per capability) rather than writing it out by hand.
import type { Capability, KeptList, Node } from '../abi/index.ts';
import type { Capabilities } from './capabilities.generated.ts';
import {
  type Clusters,
  type Instances,
  type InstancesV2,
  type LoadBalancer,
  type Provider,
  type Routes,
  type Zones,
  withNodeListPreparer,
} from './provider.ts';

/** What each capability is made from: one factory per capability, all taking the same input. */
export type CapabilityFactories<Input> = { readonly [C in Capability]: (input: Input) => Capabilities[C] };

type CapabilitySet = { [C in Capability]?: Capabilities[C] };

/** The implementations of `capabilities`, each made by its factory; the others stay undefined. */
export function buildCapabilities<Input>(
  capabilities: Iterable<Capability>,
  factories: CapabilityFactories<Input>,
  input: Input,
): Readonly<CapabilitySet> {
  const set: CapabilitySet = {};
  const add = <C extends Capability>(capability: C): void => {
    set[capability] = factories[capability](input);
  };
  for (const capability of capabilities) add(capability);
  return set;
}

/** `capabilities` with `prepare` as their load balancer's prepareNodes hint (NodeListPreparer), if they have one. */
export function preparingNodeLists(
  capabilities: Readonly<CapabilitySet>,
  prepare: (nodes: KeptList<Node>) => void,
): Readonly<CapabilitySet> {
  const balancer = capabilities.loadBalancer;
  return balancer === undefined
    ? capabilities
    : { ...capabilities, loadBalancer: withNodeListPreparer(balancer, prepare) };
}

/** A Provider answering its capability accessors from a set built once; undefined is upstream's `(nil, false)`. */
export abstract class CapabilitySetProvider implements Provider {
  readonly #capabilities: Readonly<CapabilitySet>;

  protected constructor(capabilities: Readonly<CapabilitySet>) {
    this.#capabilities = capabilities;
  }

  abstract providerName(): string;
  abstract hasClusterID(): boolean;

  instancesV2(): InstancesV2 | undefined {
    return this.#capabilities.instancesV2;
  }

  instances(): Instances | undefined {
    return this.#capabilities.instances;
  }

  loadBalancer(): LoadBalancer | undefined {
    return this.#capabilities.loadBalancer;
  }

  routes(): Routes | undefined {
    return this.#capabilities.routes;
  }

  zones(): Zones | undefined {
    return this.#capabilities.zones;
  }

  clusters(): Clusters | undefined {
    return this.#capabilities.clusters;
  }
}

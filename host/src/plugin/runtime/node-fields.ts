// Load balancer node lists cut to the fields a plugin reads (ABI 1.7, plugin-sdk/ABI.md "Node fields of load balancer
// calls"). A plugin names them in ccm_describe's loadBalancerNodeFields; its EnsureLoadBalancer and UpdateLoadBalancer
// requests then carry only those. Labels and annotations are most of a Node's JSON, and each instance decodes the
// whole list at its first call: a 1,000-node list that a plugin needs only names and provider IDs of is a tenth the
// size, to send, to decode and to keep in every instance.
import { ABI_MINOR, type KeptList, keptList, NODE_FIELDS, type Node, isKeptList } from '../../abi/index.ts';
import { abiMinorOf } from './later-fields.ts';

export type NodeField = keyof Node;

/** What load balancer node lists carry: every Node field but the instance methods' systemUUID (convert.ts). */
const LIST_FIELDS: readonly NodeField[] = NODE_FIELDS.filter((f) => f !== 'systemUUID');

/**
 * The fields a plugin's load balancer node lists carry, from its description: undefined when they carry every field
 * (nothing declared, or everything). Throws an Error naming the problem for a field no Node of the plugin's minor
 * has (a misspelling would otherwise silently empty a field the plugin reads); names a newer minor may have added
 * are left out, as a host of that minor would not send them either.
 */
export function loadBalancerNodeFieldsOf(described: {
  abi: string;
  loadBalancerNodeFields?: readonly string[];
}): readonly NodeField[] | undefined {
  const declared = described.loadBalancerNodeFields ?? [];
  if (declared.length === 0 || abiMinorOf(described.abi) < 7) return undefined;
  const newer = abiMinorOf(described.abi) > ABI_MINOR;
  const fields = new Set<NodeField>();
  for (const name of declared) {
    if (name === 'systemUUID') {
      throw new Error('loadBalancerNodeFields names systemUUID, which load balancer node lists never carry');
    }
    if ((LIST_FIELDS as readonly string[]).includes(name)) fields.add(name as NodeField);
    else if (!newer) {
      throw new Error(
        `loadBalancerNodeFields names ${JSON.stringify(name)}, not a Node field (${LIST_FIELDS.join(', ')})`,
      );
    }
  }
  // In the order of the definition, so the same declaration always gives the same JSON.
  const ordered = LIST_FIELDS.filter((f) => fields.has(f));
  return ordered.length === LIST_FIELDS.length ? undefined : ordered;
}

/**
 * Cuts node lists to `fields`. A KeptList gives a KeptList, the same one for as long as the list is given again, and
 * also when a new list cuts to the same JSON as the last one (a label changed that the plugin does not read): its
 * instances keep the list they hold instead of being sent it again.
 */
export class NodeListProjection {
  readonly #fields: readonly NodeField[];
  readonly #cut = new WeakMap<readonly Node[], KeptList<Node>>();
  #last: { json: string; list: KeptList<Node> } | undefined;

  constructor(fields: readonly NodeField[]) {
    this.#fields = fields;
  }

  get fields(): readonly NodeField[] {
    return this.#fields;
  }

  /**
   * `nodes` with only the fields: typed as Node[] for the request types, though the fields left out are absent (the
   * SDK reads an absent field as empty).
   */
  project(nodes: readonly Node[]): Node[] {
    if (!isKeptList(nodes)) return nodes.map((node) => this.#node(node));
    const known = this.#cut.get(nodes);
    if (known !== undefined) return known;
    const items = nodes.map((node) => Object.freeze(this.#node(node)));
    const json = JSON.stringify(items);
    const list = this.#last?.json === json ? this.#last.list : keptList(items, json);
    this.#last = { json, list };
    this.#cut.set(nodes, list);
    return list;
  }

  #node(node: Node): Node {
    const out: Partial<Record<NodeField, unknown>> = {};
    for (const field of this.#fields) out[field] = node[field];
    return out as Node;
  }
}

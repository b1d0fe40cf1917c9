// Load balancer node lists cut to the fields a plugin reads (ABI 1.7, plugin-sdk/ABI.md "Node fields of load balancer
// calls"). A plugin names them in ccm_describe's loadBalancerNodeFields; in its EnsureLoadBalancer and
// UpdateLoadBalancer requests every other field then travels empty ("", {}, []), so the request still has every field
// of 1.0. Labels and annotations are most of a Node's JSON, and each instance decodes the whole list at its first call:
// a 1,000-node list that a plugin needs only names and provider IDs of is a tenth the size, to send, to decode and to
// keep in every instance.
import { ABI_MINOR, type KeptList, keptList, NODE_FIELDS, type Node, isKeptList } from '../../abi/index.ts';
import { abiMinorOf } from './later-fields.ts';

export type NodeField = keyof Node;

interface CutList {
  json: string;
  list: KeptList<Node>;
}

/** What load balancer node lists carry: every Node field but the instance methods' systemUUID (convert.ts). */
const LIST_FIELDS: readonly NodeField[] = NODE_FIELDS.filter((f) => f !== 'systemUUID');

/** Each list field's empty value, as a field the plugin did not name travels. */
const EMPTY: Readonly<Omit<Node, 'systemUUID'>> = Object.freeze({
  name: '',
  uid: '',
  providerID: '',
  labels: Object.freeze({}),
  annotations: Object.freeze({}),
  addresses: Object.freeze([]) as unknown as Node['addresses'],
});

/**
 * The fields a plugin's load balancer node lists carry, from its description: undefined when they carry every field
 * (nothing declared, or every field, or only names this host does not know). Throws an Error naming the problem for a
 * name that is not a field of this host's Node, or systemUUID, from a plugin of this host's minor or an earlier one
 * (a misspelling would otherwise silently empty a field the plugin reads). From a plugin of a newer minor such names
 * are left out: that minor may have added them, and this host would not send them anyway.
 */
export function loadBalancerNodeFieldsOf(described: {
  abi: string;
  loadBalancerNodeFields?: readonly string[];
}): readonly NodeField[] | undefined {
  const declared = described.loadBalancerNodeFields ?? [];
  if (declared.length === 0 || abiMinorOf(described.abi) < 7) return undefined;
  const newer = abiMinorOf(described.abi) > ABI_MINOR;
  const fields = new Set<string>();
  for (const name of declared) {
    if ((LIST_FIELDS as readonly string[]).includes(name)) fields.add(name);
    else if (newer) continue;
    else if (name === 'systemUUID') {
      throw new Error('loadBalancerNodeFields names systemUUID, which load balancer node lists never carry');
    } else {
      throw new Error(
        `loadBalancerNodeFields names ${JSON.stringify(name)}, not a Node field (${LIST_FIELDS.join(', ')})`,
      );
    }
  }
  const named = LIST_FIELDS.filter((f) => fields.has(f));
  return named.length === 0 || named.length === LIST_FIELDS.length ? undefined : named;
}

/**
 * Cuts node lists to `fields` (the others empty). A KeptList gives a KeptList, the same one for as long as the list is
 * given again, and also when a new list cuts to the same JSON as the last one a call carried (a label changed that
 * the plugin does not read): its instances keep the list they hold instead of being sent it again. A kept list's
 * nodes are frozen (load-balancer-nodes.ts gives a changed node a new object), so each node's cut and JSON are kept
 * with the node: a new list costs a cut only of the nodes that changed, and its JSON is the kept pieces joined.
 */
export class NodeListProjection {
  readonly #named: ReadonlySet<NodeField>;
  readonly #cut = new WeakMap<readonly Node[], CutList>();
  readonly #cutNodes = new WeakMap<Node, { node: Node; json: string }>();
  /** The cut list the last call carried: what the instances hold. */
  #sent: CutList | undefined;

  constructor(fields: readonly NodeField[]) {
    this.#named = new Set(fields);
  }

  /** `nodes` as a call carries them: every field the plugin did not name empty, in the order of Node's definition. */
  project(nodes: readonly Node[]): Node[] {
    if (!isKeptList(nodes)) return nodes.map((node) => this.#node(node));
    const cut = this.#cutOf(nodes);
    this.#sent = cut;
    return cut.list;
  }

  /** Cuts a kept list ahead of the call that will carry it (what the instances hold is left as it is). */
  prepare(nodes: readonly Node[]): void {
    if (isKeptList(nodes)) this.#cutOf(nodes);
  }

  #cutOf(nodes: readonly Node[]): CutList {
    const known = this.#cut.get(nodes);
    if (known !== undefined) return known;
    const items: Node[] = [];
    const pieces: string[] = [];
    for (const node of nodes) {
      const cut = this.#keptCut(node);
      items.push(cut.node);
      pieces.push(cut.json);
    }
    // JSON.stringify of an array is its elements' JSON between brackets, comma-separated.
    const json = `[${pieces.join(',')}]`;
    // Encoded when a request first carries it: a list made ahead may be replaced before any call needs it.
    const cut = this.#sent?.json === json ? this.#sent : { json, list: keptList(items, () => json) };
    this.#cut.set(nodes, cut);
    return cut;
  }

  #keptCut(node: Node): { node: Node; json: string } {
    let cut = this.#cutNodes.get(node);
    if (cut === undefined) {
      const frozen = Object.freeze(this.#node(node));
      cut = { node: frozen, json: JSON.stringify(frozen) };
      this.#cutNodes.set(node, cut);
    }
    return cut;
  }

  #node(node: Node): Node {
    const out: Partial<Record<NodeField, unknown>> = {};
    for (const field of LIST_FIELDS)
      out[field] = this.#named.has(field) ? node[field] : EMPTY[field as keyof typeof EMPTY];
    return out as Node;
  }
}

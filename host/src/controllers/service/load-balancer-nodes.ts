// The nodes every load balancer is given, kept up to date from the Node informer's events. Listing, filtering and
// converting every node on every ensure, and sorting the whole set on every node sync, cost O(nodes) per call and
// O(nodes^2) over a burst of node adds; here each node event costs O(1), and a node is converted (and its membership
// hashed) only when the list is next made. It is made when a load balancer needs it, and, when the set is given a
// `prepare` (the balancer's NodeListPreparer), also at most every 250 ms while nodes change: the first sync of a burst of
// Services then finds the list made and cut to the plugin's fields, instead of doing it while the other syncs wait.
import { hash } from 'node:crypto';
import { objectKey } from '../../kube/client/wire.ts';
import { type EventHandlers, isTombstone } from '../../kube/informer/informer.ts';
import { type KeptList, keptList, type Node } from '../../abi/index.ts';
import { toABINode } from '../convert.ts';
import type { WireNode } from '../framework/wire-objects.ts';
import { nodeIncludedInLoadBalancers } from './rules.ts';

/**
 * How long after a change the list is made for `prepare`: at most one list per this long, the first this long after
 * the event that started it. Node events come in runs (a node's initialization is several updates; a burst of nodes,
 * thousands, and heartbeats never stop): a list per event would be made thousands of times over.
 */
const DEFAULT_PREPARE_DELAY_MS = 250;

export interface LoadBalancerNodeSetOptions {
  /** Given each new list a moment after the set changed (never throws: a balancer's NodeListPreparer). */
  prepare?: (nodes: KeptList<Node>) => void;
  /** That moment. Default 250 ms. */
  prepareDelayMs?: number;
}

/** What the set needs of the Node informer. */
export interface NodeEventSource {
  addEventHandler(handlers: EventHandlers<WireNode>): () => void;
}

interface Entry {
  /** `name=providerID` while the node is included, as upstream compares node sets. */
  member: string | undefined;
  /** The member whose hash the digest holds (identity() catches up with `member`). */
  hashed: string | undefined;
  /** The node's ABI form, frozen, while it is included (as of the last nodes()). */
  abi: Node | undefined;
}

// 8 lanes of 32 bits: the whole SHA-256 of each member.
const LANES = 8;

const identityOf = (members: number, digest: Uint32Array): string => `${members}:${digest.join(',')}`;

/** The identity of the empty node set: what a load balancer never given a node set is compared as (upstream). */
export const EMPTY_NODE_SET_IDENTITY = identityOf(0, new Uint32Array(LANES));

export class LoadBalancerNodeSet {
  /** Every node in the informer's order (included or not), so the list keeps the order a cache listing had. */
  private readonly entries = new Map<string, Entry>();
  /** Sum (mod 2^32 per lane) of the members' hashes: order-independent and updated in O(1) per change. */
  private readonly digest = new Uint32Array(LANES);
  /** Entries whose member changed since the digest took it in: hashed when an identity is next asked for. */
  private readonly unhashed = new Set<Entry>();
  private members = 0;
  private membershipVersion = 0;
  private contentVersion = 0;
  /** Included entries whose latest node nodes() has not converted yet, with that node. */
  private readonly unconverted = new Map<Entry, WireNode>();
  private identityCache: { version: number; value: string } | undefined;
  private listCache: { version: number; value: KeptList<Node> } | undefined;
  private readonly prepare: ((nodes: KeptList<Node>) => void) | undefined;
  private readonly prepareDelayMs: number;
  private prepareTimer: NodeJS.Timeout | undefined;
  /** The last list given to prepare. */
  private prepared: KeptList<Node> | undefined;
  private readonly unsubscribe: () => void;

  constructor(source: NodeEventSource, options: LoadBalancerNodeSetOptions = {}) {
    this.prepare = options.prepare;
    this.prepareDelayMs = options.prepareDelayMs ?? DEFAULT_PREPARE_DELAY_MS;
    this.unsubscribe = source.addEventHandler({
      onAdd: (node) => this.upsert(node),
      // A periodic resync redelivers the same object: nothing to do.
      onUpdate: (old, node) => (old === node ? undefined : this.upsert(node)),
      onDelete: (obj) => this.remove(isTombstone(obj) ? obj.key : objectKey(obj)),
    });
  }

  /** Stops following the informer (and preparing lists). */
  detach(): void {
    this.unsubscribe();
    clearTimeout(this.prepareTimer);
    this.prepareTimer = undefined;
  }

  /** How many nodes load balancers get. */
  get size(): number {
    return this.members;
  }

  /**
   * The node set as upstream compares it (name -> providerID), as a short string: two calls return equal strings
   * exactly when the sets are equal (but for a SHA-256-sized chance of a collision of the digest sums). A node that goes and comes back
   * unchanged gives the same identity again, so it costs no load balancer update, as upstream.
   */
  identity(): string {
    if (this.identityCache?.version !== this.membershipVersion) {
      for (const entry of this.unhashed) this.hash(entry);
      this.unhashed.clear();
      this.identityCache = { version: this.membershipVersion, value: identityOf(this.members, this.digest) };
    }
    return this.identityCache.value;
  }

  /**
   * The included nodes in ABI form, as a KeptList: the same list is returned until an included node's ABI form
   * changes; it and its nodes are frozen (a provider cannot corrupt what the next call gets), a plugin keeps it
   * across calls, and it is serialized once, when a request first carries it whole (a plugin that names its Node
   * fields is sent a cut of it instead: plugin/runtime/node-fields.ts), instead of ~1 KB per node per call.
   */
  nodes(): KeptList<Node> {
    this.convertPending();
    if (this.listCache?.version !== this.contentVersion) {
      const abis: Node[] = [];
      for (const entry of this.entries.values()) if (entry.abi !== undefined) abis.push(entry.abi);
      this.listCache = { version: this.contentVersion, value: keptList(abis) };
    }
    return this.listCache.value;
  }

  private upsert(node: WireNode): void {
    this.schedulePrepare();
    const key = objectKey(node);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { member: undefined, hashed: undefined, abi: undefined };
      this.entries.set(key, entry);
    }
    const included = nodeIncludedInLoadBalancers(node);
    this.setMember(entry, included ? `${node.metadata?.name ?? ''}=${node.spec?.providerID ?? ''}` : undefined);
    if (included) {
      this.unconverted.set(entry, node);
      return;
    }
    this.forget(entry);
  }

  private schedulePrepare(): void {
    if (this.prepare === undefined || this.prepareTimer !== undefined) return;
    this.prepareTimer = setTimeout(() => this.prepareNow(), this.prepareDelayMs);
    // A hint: it never holds the process open.
    this.prepareTimer.unref();
  }

  private prepareNow(): void {
    this.prepareTimer = undefined;
    try {
      const list = this.nodes();
      // The set's identity too: the first sync of a burst reads it with the list, before its cloud call.
      this.identity();
      // Most node updates (heartbeats) leave the list as it was.
      if (list === this.prepared) return;
      this.prepare?.(list);
      this.prepared = list;
    } catch {
      // A timer's exception would end the process: what fails here fails again in the sync that needs the list, and
      // is reported there.
    }
  }

  /** Drops an entry's ABI form (the node is excluded or gone). */
  private forget(entry: Entry): void {
    if (entry.abi !== undefined) this.contentVersion++;
    entry.abi = undefined;
    this.unconverted.delete(entry);
  }

  private convertPending(): void {
    for (const [entry, node] of this.unconverted) {
      // Most node updates (conditions, heartbeats) leave the ABI form as it was: the cached list stays valid then.
      if (entry.abi !== undefined && sameABINode(entry.abi, node)) continue;
      entry.abi = freezeNode(toABINode(node));
      this.contentVersion++;
    }
    this.unconverted.clear();
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.schedulePrepare();
    this.setMember(entry, undefined);
    this.forget(entry);
    // Its hash leaves the digest now: the entry is not kept for identity() to find.
    this.hash(entry);
    this.unhashed.delete(entry);
    this.entries.delete(key);
  }

  private setMember(entry: Entry, member: string | undefined): void {
    if (member === entry.member) return;
    this.members += (member === undefined ? 0 : 1) - (entry.member === undefined ? 0 : 1);
    entry.member = member;
    this.membershipVersion++;
    this.unhashed.add(entry);
  }

  /** Brings the digest up to the entry's member. */
  private hash(entry: Entry): void {
    if (entry.hashed === entry.member) return;
    if (entry.hashed !== undefined) this.addToDigest(entry.hashed, -1);
    if (entry.member !== undefined) this.addToDigest(entry.member, 1);
    entry.hashed = entry.member;
  }

  private addToDigest(member: string, sign: 1 | -1): void {
    const h = hash('sha256', member, 'buffer');
    // Uint32Array stores modulo 2^32, so a removal exactly undoes its addition.
    for (let i = 0; i < LANES; i++) this.digest[i] = (this.digest[i] ?? 0) + sign * h.readUInt32LE(i * 4);
  }
}

/** Whether `node` converts to `abi` (toABINode), compared field by field: no conversion, no serialization. */
function sameABINode(abi: Node, node: WireNode): boolean {
  const addresses = node.status?.addresses ?? [];
  return (
    abi.name === (node.metadata?.name ?? '') &&
    abi.uid === (node.metadata?.uid ?? '') &&
    abi.providerID === (node.spec?.providerID ?? '') &&
    sameStrings(abi.labels, node.metadata?.labels) &&
    sameStrings(abi.annotations, node.metadata?.annotations) &&
    abi.addresses.length === addresses.length &&
    addresses.every((a, i) => abi.addresses[i]?.type === a.type && abi.addresses[i]?.address === a.address)
  );
}

/** Equal string maps, key order included: JSON.stringify of the two would differ by it. */
function sameStrings(
  kept: Readonly<Record<string, string>>,
  wire: Readonly<Record<string, string>> | undefined,
): boolean {
  const keys = Object.keys(kept);
  const wireKeys = wire === undefined ? [] : Object.keys(wire);
  if (keys.length !== wireKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== wireKeys[i] || kept[key] !== wire?.[key]) return false;
  }
  return true;
}

function freezeNode(node: Node): Node {
  Object.freeze(node.labels);
  Object.freeze(node.annotations);
  for (const address of node.addresses) Object.freeze(address);
  Object.freeze(node.addresses);
  return Object.freeze(node);
}

// Kept node lists (ABI 1.2, plugin-sdk/ABI.md "Kept lists"). EnsureLoadBalancer and UpdateLoadBalancer carry the whole
// node list, ~0.7 MB of JSON for 1,000 nodes, and the service controller sends the same list for every Service until a
// node changes. An instance is sent a list once with a reference number it keeps it under; afterwards that instance
// gets only the number. The choice depends on the instance, so it is made once the pool has picked one.
import { type Node, isKeptList } from '../../abi/index.ts';

/** The requests that carry a node list (the methods whose request has `nodesRef`). */
export interface NodeListRequest {
  nodes: Node[];
  nodesRef?: number;
}

/** What the refs need of an instance (PluginInstance; a fake in tests). */
export interface NodeListInstance {
  call(exportName: string, input: Uint8Array | string, timeoutMs: number): Promise<Uint8Array>;
}

/** Serializes a request for the instance (JSON.stringify, or a splicing encoder giving bytes). */
export type EncodeRequest = (wire: object) => Uint8Array | string;

// References are i32 on the wire. Past the last one, lists simply go in full: reusing a number could make an
// instance take a kept list for another.
const MAX_REF = 0x7fffffff;
// What the SDK answers for a reference the instance does not hold (kept-lists.ts); an error envelope is short.
const UNKNOWN_REF_PREFIX = 'unknown nodesRef ';
const UNKNOWN_REF_MAX_BYTES = 512;
const UNKNOWN_REF_BYTES = Buffer.from(UNKNOWN_REF_PREFIX);
const utf8 = new TextDecoder();

export class NodeListRefs {
  readonly #ids = new WeakMap<readonly Node[], number>();
  // The reference each instance holds, known only once it answered the call that sent the list.
  readonly #held = new WeakMap<NodeListInstance, number>();
  readonly #onResend: () => void;
  #next = 1;

  /** `onResend` is told when an instance did not hold the list it was expected to (it is sent again). */
  constructor(onResend: () => void = () => {}) {
    this.#onResend = onResend;
  }

  /** The reference of `nodes`, given on first sight; 0 when the list goes in full every time. */
  refOf(nodes: readonly Node[]): number {
    // Identity stands for content only for a KeptList (frozen for good; the service controller makes one per content
    // version). An empty list costs nothing to send (and `nodes: []` is how a ref-only request looks).
    if (nodes.length === 0 || !isKeptList(nodes)) return 0;
    let ref = this.#ids.get(nodes);
    if (ref === undefined) {
      if (this.#next > MAX_REF) return 0;
      ref = this.#next++;
      this.#ids.set(nodes, ref);
    }
    return ref;
  }

  /** The reference `instance` holds, if any. */
  heldBy(instance: NodeListInstance): number | undefined {
    return this.#held.get(instance);
  }

  /**
   * Calls `exportName` on `instance` with `request`: ref-only when the instance holds the list, else the list with its
   * ref. An instance that answers "unknown nodesRef" gets the list once more, within the same deadline.
   */
  async call(
    instance: NodeListInstance,
    exportName: string,
    request: NodeListRequest,
    timeoutMs: number,
    encode: EncodeRequest,
  ): Promise<Uint8Array> {
    const ref = this.refOf(request.nodes);
    if (ref === 0) return instance.call(exportName, encode(request), timeoutMs);
    const deadline = Date.now() + timeoutMs;
    const holds = this.#held.get(instance) === ref;
    // Not known to hold anything until it answers: a call that fails or kills the instance leaves no ref behind.
    this.#held.delete(instance);
    let remainingMs = timeoutMs;
    if (holds) {
      const output = await instance.call(exportName, encode({ ...request, nodes: [], nodesRef: ref }), timeoutMs);
      if (!isUnknownRef(output)) {
        this.#held.set(instance, ref);
        return output;
      }
      this.#onResend();
      remainingMs = Math.max(1, deadline - Date.now());
    }
    const output = await instance.call(exportName, encode({ ...request, nodesRef: ref }), remainingMs);
    this.#held.set(instance, ref);
    return output;
  }
}

/** Whether `method` is one whose request carries a node list. */
export function isNodeListMethod(method: string): method is 'ensureLoadBalancer' | 'updateLoadBalancer' {
  return method === 'ensureLoadBalancer' || method === 'updateLoadBalancer';
}

/** Whether a plugin describing itself as ABI `abi` ("1.<minor>") speaks kept lists (1.2 or later). */
export function speaksKeptLists(abi: string): boolean {
  const match = /^1\.(\d+)$/.exec(abi);
  return match !== null && Number(match[1]) >= 2;
}

function isUnknownRef(output: Uint8Array): boolean {
  // Most answers are not errors: only one that holds the message's start is parsed.
  if (
    output.byteLength > UNKNOWN_REF_MAX_BYTES ||
    !Buffer.from(output.buffer, output.byteOffset, output.byteLength).includes(UNKNOWN_REF_BYTES)
  ) {
    return false;
  }
  try {
    const value = JSON.parse(utf8.decode(output)) as { error?: { code?: unknown; message?: unknown } };
    const error = value.error;
    return (
      error?.code === 'Invalid' && typeof error.message === 'string' && error.message.startsWith(UNKNOWN_REF_PREFIX)
    );
  } catch {
    // Not JSON: decodeAnswer reports it.
    return false;
  }
}

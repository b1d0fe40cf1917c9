// The batched instance calls of ABI 1.5 as the controllers use them: one call for many nodes when the provider has
// the batched method, else the per-node method once per node (what a plugin of an earlier minor, or one that does not
// export the batched method, gets). Either way the answer is one result per node, in the order of the nodes, holding
// that node's value or that node's own error, so the controllers keep their per-node retries and events. The combined
// batch of ABI 1.6 (instanceStatusBatch) falls back to two of those: exists for every node, shutdown for those that exist.
import type { InstanceMetadata, InstanceStatusOutcome, Node, NodeError } from '../abi/index.ts';
import type { InstancesV2 } from './capabilities.generated.ts';
import {
  InstanceNotFoundError,
  InternalError,
  InvalidError,
  isNotImplemented,
  NotImplementedError,
  type ProviderError,
  type ProviderErrorContext,
  RetryError,
} from './errors.ts';

/** One node's answer in a batch: its value, or the error the per-node call would have rejected with. */
export type NodeResult<T> = { ok: true; value: T } | { ok: false; error: Error };

/**
 * The most nodes the controllers put in one batched call: large enough that a burst of new nodes costs a few calls,
 * small enough that a cloud's list-by-IDs request (often capped at 100 or 200 IDs) holds a batch.
 */
export const INSTANCE_BATCH_SIZE = 50;

/**
 * The most nodes cloud-node-lifecycle puts in one instanceStatusBatch: every NotReady node of a pass in one call even
 * when a zone's worth of nodes goes NotReady together. A pass is a periodic check, not a burst of initializations
 * each waiting on the batch, and the plugins answer it from one lookup of a request per 100-200 nodes (AWS: 200
 * filter values, devcloud: 100 IDs, nova: one paged listing): 500 nodes cost 3-5 cloud requests and ~0.1 s in the
 * devcloud plugin, far within a call's 10 s deadline, with a few hundred KB of node JSON in the request.
 */
export const INSTANCE_STATUS_BATCH_SIZE = 500;

/** Why the nodes a cancelled batch did not get to have no answer. */
export class BatchCancelledError extends Error {
  override name = 'BatchCancelledError';
  readonly code = 'BATCH_CANCELLED';
  constructor(method: string) {
    super(`${method}: cancelled before the node was asked about`);
  }
}

interface Outcome<R> {
  ok: R;
  error: NodeError;
}

interface BatchSpec<R, T> {
  /** The per-node method, for errors. */
  method: string;
  batch: ((nodes: Node[]) => Promise<Outcome<R>[]>) | undefined;
  one: (node: Node) => Promise<T>;
  value: (ok: R) => T;
}

/** The provider error a node's outcome stands for (the codes of the per-node method's error envelope). */
export function nodeErrorOf(error: NodeError, context: ProviderErrorContext): ProviderError {
  switch (error.code) {
    case 'InstanceNotFound':
      return new InstanceNotFoundError(error.message, context);
    case 'NotImplemented':
      return new NotImplementedError(error.message, context);
    case 'Retry':
      return new RetryError(error.message, error.retryAfterSeconds, context);
    case 'Invalid':
      return new InvalidError(error.message, context);
    default:
      return new InternalError(error.message, context);
  }
}

const failAll = <T>(count: number, error: Error): NodeResult<T>[] =>
  Array.from({ length: count }, () => ({ ok: false, error }));

// Per node, one after another: the caller's concurrency (workers, batches in flight) stays what bounds the calls.
async function eachNode<T>(
  nodes: readonly Node[],
  spec: BatchSpec<unknown, T>,
  signal: AbortSignal | undefined,
): Promise<NodeResult<T>[]> {
  const results: NodeResult<T>[] = [];
  for (const node of nodes) {
    if (signal?.aborted) {
      results.push({ ok: false, error: new BatchCancelledError(spec.method) });
      continue;
    }
    try {
      results.push({ ok: true, value: await spec.one(node) });
    } catch (err) {
      results.push({ ok: false, error: err instanceof Error ? err : new InternalError(String(err)) });
    }
  }
  return results;
}

async function batched<R, T>(
  nodes: readonly Node[],
  spec: BatchSpec<R, T>,
  signal: AbortSignal | undefined,
): Promise<NodeResult<T>[]> {
  if (nodes.length === 0) return [];
  if (signal?.aborted) return failAll(nodes.length, new BatchCancelledError(spec.method));
  if (spec.batch === undefined) return eachNode(nodes, spec as BatchSpec<unknown, T>, signal);
  let outcomes: Outcome<R>[];
  try {
    outcomes = await spec.batch([...nodes]);
  } catch (err) {
    // The provider current at the call lacks the batched method (a hot swap to an older plugin): per node.
    if (isNotImplemented(err)) return eachNode(nodes, spec as BatchSpec<unknown, T>, signal);
    return failAll(nodes.length, err instanceof Error ? err : new InternalError(String(err)));
  }
  if (outcomes.length !== nodes.length) return failAll(nodes.length, lengthError(spec.method, outcomes, nodes));
  return outcomes.map((o) => resultOf(o, spec.value, { method: spec.method }));
}

const lengthError = (method: string, outcomes: readonly unknown[], nodes: readonly Node[]): Error =>
  new InternalError(`the batched ${method} answered ${outcomes.length} results for ${nodes.length} nodes`, { method });

function resultOf<R, T>(o: Outcome<R>, value: (ok: R) => T, context: ProviderErrorContext): NodeResult<T> {
  return o.error.code === '' ? { ok: true, value: value(o.ok) } : { ok: false, error: nodeErrorOf(o.error, context) };
}

/** instanceMetadata of each node, in one call when the provider has instanceMetadataBatch. */
export function instanceMetadataOfEach(
  v2: InstancesV2,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<NodeResult<InstanceMetadata>[]> {
  const batch = v2.instanceMetadataBatch?.bind(v2);
  const one = (node: Node) => v2.instanceMetadata(node);
  return batched(nodes, { method: 'instanceMetadata', batch, one, value: (ok) => ok }, signal);
}

/** instanceExists of each node, in one call when the provider has instanceExistsBatch. */
export function instanceExistsOfEach(
  v2: InstancesV2,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<NodeResult<boolean>[]> {
  const batch = v2.instanceExistsBatch?.bind(v2);
  const one = (node: Node) => v2.instanceExists(node);
  return batched(nodes, { method: 'instanceExists', batch, one, value: (ok) => ok.exists }, signal);
}

/** instanceShutdown of each node, in one call when the provider has instanceShutdownBatch. */
export function instanceShutdownOfEach(
  v2: InstancesV2,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<NodeResult<boolean>[]> {
  const batch = v2.instanceShutdownBatch?.bind(v2);
  const one = (node: Node) => v2.instanceShutdown(node);
  return batched(nodes, { method: 'instanceShutdown', batch, one, value: (ok) => ok.shutdown }, signal);
}

/** One node's lifecycle answers: whether its instance exists, and whether it is shut down. */
export interface InstanceStatus {
  exists: NodeResult<boolean>;
  /** The node's instanceShutdown answer when exists answered true; otherwise false, never asked. */
  shutdown: NodeResult<boolean>;
}

const NOT_ASKED: NodeResult<boolean> = { ok: true, value: false };

/**
 * instanceExists of each node and instanceShutdown of each that exists (upstream cloud-node-lifecycle's two
 * questions, in its order): one call when the provider has instanceStatusBatch, else instanceExistsOfEach and then
 * instanceShutdownOfEach for the nodes that exist.
 */
export async function instanceStatusOfEach(
  v2: InstancesV2,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<InstanceStatus[]> {
  if (nodes.length === 0) return [];
  const batch = v2.instanceStatusBatch?.bind(v2);
  if (batch !== undefined && signal?.aborted !== true) {
    let outcomes: InstanceStatusOutcome[] | undefined;
    try {
      outcomes = await batch([...nodes]);
    } catch (err) {
      // A hot swap to a provider without the method: the two calls it combines.
      if (!isNotImplemented(err)) {
        const error = err instanceof Error ? err : new InternalError(String(err));
        return nodes.map(() => ({ exists: { ok: false, error }, shutdown: NOT_ASKED }));
      }
    }
    if (outcomes !== undefined) return statusOf(outcomes, nodes);
  }
  const exists = await instanceExistsOfEach(v2, nodes, signal);
  const present = nodes.filter((_, i) => isTrue(exists[i]!));
  const shutdown = await instanceShutdownOfEach(v2, present, signal);
  let next = 0;
  return exists.map((e) => ({ exists: e, shutdown: isTrue(e) ? shutdown[next++]! : NOT_ASKED }));
}

const isTrue = (r: NodeResult<boolean>): boolean => r.ok && r.value;

function statusOf(outcomes: InstanceStatusOutcome[], nodes: readonly Node[]): InstanceStatus[] {
  if (outcomes.length !== nodes.length) {
    const error = lengthError('instanceStatus', outcomes, nodes);
    return nodes.map(() => ({ exists: { ok: false, error }, shutdown: NOT_ASKED }));
  }
  return outcomes.map((o) => {
    const exists = resultOf(o.exists, (ok) => ok.exists, { method: 'instanceExists' });
    if (!isTrue(exists)) return { exists, shutdown: NOT_ASKED };
    return { exists, shutdown: resultOf(o.shutdown, (ok) => ok.shutdown, { method: 'instanceShutdown' }) };
  });
}

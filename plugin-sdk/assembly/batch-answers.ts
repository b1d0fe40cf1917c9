// The batched instance methods' answers from one lookup per node, for a provider that looks many nodes up at once
// (one listing, one filtered call) and answers each node as its per-node method would: the provider gives the
// lookups and how one lookup answers (a top-level function: AssemblyScript has no closures); these fill the
// response in the nodes' order, each node's error its own.
import {
  InstanceExistsBatchResponse,
  InstanceExistsOutcome,
  InstanceExistsResponse,
  InstanceShutdownBatchResponse,
  InstanceShutdownOutcome,
  InstanceShutdownResponse,
  InstanceStatusBatchResponse,
  InstanceStatusOutcome,
  Node,
} from "./abi/types.generated";
import { nodeError, PluginError } from "./errors";

export type ExistsOf<T> = (found: T, out: InstanceExistsResponse) => PluginError | null;
export type ShutdownOf<T> = (found: T, node: Node, out: InstanceShutdownResponse) => PluginError | null;

/** instanceExistsBatch: `exists` on each node's lookup. */
export function answerExists<T>(found: T[], exists: ExistsOf<T>, out: InstanceExistsBatchResponse): void {
  for (let i = 0; i < found.length; i++) {
    const outcome = new InstanceExistsOutcome();
    const err = exists(found[i], outcome.ok);
    if (err !== null) outcome.error = nodeError(err);
    out.results.push(outcome);
  }
}

/** instanceShutdownBatch: `shutdown` on each node's lookup. */
export function answerShutdown<T>(found: T[], nodes: Node[], shutdown: ShutdownOf<T>, out: InstanceShutdownBatchResponse): void {
  for (let i = 0; i < found.length; i++) {
    const outcome = new InstanceShutdownOutcome();
    const err = shutdown(found[i], nodes[i], outcome.ok);
    if (err !== null) outcome.error = nodeError(err);
    out.results.push(outcome);
  }
}

/** instanceStatusBatch: both from each node's lookup, shutdown only for the instances that exist. */
export function answerStatus<T>(
  found: T[],
  nodes: Node[],
  exists: ExistsOf<T>,
  shutdown: ShutdownOf<T>,
  out: InstanceStatusBatchResponse,
): void {
  for (let i = 0; i < found.length; i++) {
    const outcome = new InstanceStatusOutcome();
    const err = exists(found[i], outcome.exists.ok);
    if (err !== null) outcome.exists.error = nodeError(err);
    else if (outcome.exists.ok.exists) {
      const off = shutdown(found[i], nodes[i], outcome.shutdown.ok);
      if (off !== null) outcome.shutdown.error = nodeError(off);
    }
    out.results.push(outcome);
  }
}

// A list of ABI objects that never changes once made, so that its identity stands for its content. The provider
// interface takes the node lists of ensureLoadBalancer and updateLoadBalancer as KeptLists: a plugin of ABI 1.2 or
// later is sent each list once and keeps it under a number (plugin/runtime/node-list-refs.ts, ABI.md "Kept lists"),
// and every request carrying it splices in the JSON made here instead of serializing it again (cached-json.ts).
import { withCachedJSON } from './cached-json.ts';

declare const KEPT: unique symbol;

/** An array frozen for good, made only by keptList(). Typed as a plain array for the ABI's request types. */
export type KeptList<T> = T[] & { readonly [KEPT]: true };

const made = new WeakSet<object>();

/**
 * Freezes `items` (the array itself: the caller hands it over) and makes it a KeptList. `json` is its serialization
 * when the caller already has it, or what makes it; by default JSON.stringify, when a request first carries the list.
 * The caller guarantees that the items are frozen too, so it can never go stale.
 */
export function keptList<T extends object>(
  items: T[],
  json: string | (() => string) = () => JSON.stringify(items),
): KeptList<T> {
  withCachedJSON(Object.freeze(items), json);
  made.add(items);
  return items as KeptList<T>;
}

/** Whether `value` was made by keptList() (a plain array, frozen or not, is not). */
export function isKeptList(value: unknown): boolean {
  return typeof value === 'object' && value !== null && made.has(value);
}

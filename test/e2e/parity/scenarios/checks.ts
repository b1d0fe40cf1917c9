// Small reads the scenarios' `until` conditions are made of.
import type { V1Node } from '@kubernetes/client-node';
import { UNINITIALIZED } from '../harness/objects.ts';
import type { World } from '../harness/world.ts';

export function hasTaint(node: V1Node | undefined, key: string): boolean {
  return (node?.spec?.taints ?? []).some((t) => t.key === key);
}

export async function nodes(world: World): Promise<Map<string, V1Node>> {
  return new Map((await world.core.listNode()).items.map((n) => [n.metadata!.name!, n]));
}

/** Every named Node exists and has lost the uninitialized taint. */
export async function initialized(world: World, ...names: string[]): Promise<boolean> {
  const all = await nodes(world);
  return names.every((n) => all.has(n) && !hasTaint(all.get(n), UNINITIALIZED));
}

export function networkUnavailable(node: V1Node | undefined): string | undefined {
  return node?.status?.conditions?.find((c) => c.type === 'NetworkUnavailable')?.status;
}

/** Every named Node has NetworkUnavailable=False (its routes exist). */
export async function routed(world: World, ...names: string[]): Promise<boolean> {
  const all = await nodes(world);
  return names.every((n) => networkUnavailable(all.get(n)) === 'False');
}

/**
 * Gives an initialized Node its pod CIDRs. A tainted Node that has them already races its initialization against
 * the route controller's NetworkUnavailable patch: the Node's next sync may read a cache from before the
 * initialization and record a second Synced event, on either CCM (upstream re-reads its lister on conflict).
 */
export async function allocatePodCIDRs(world: World, name: string, cidrs: string[]): Promise<void> {
  await world.patchNode(name, { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } });
}

/** The Service's first ingress IP, if it has one. */
export async function ingressOf(world: World, name: string): Promise<string | undefined> {
  return (await world.service(name))?.status?.loadBalancer?.ingress?.[0]?.ip;
}

/** The names of the instances behind a Service's cloud LB (undefined: no LB). */
export function backendsOf(world: World, service: string): string[] | undefined {
  return world.lb(service)?.backends.map((b) => b.name);
}

// Request fields a later ABI minor added, kept from plugins of an earlier one (plugin-sdk/ABI.md, "Versions": a host
// sends a field only to plugins whose ccm_describe answered its minor or a later one).
import type { MethodName, Node, Requests } from '../../abi/index.ts';

/** The minor of "1.<minor>"; -1 when `abi` is not of that form. */
export function abiMinorOf(abi: string): number {
  const match = /^1\.(\d+)$/.exec(abi);
  return match === null ? -1 : Number(match[1]);
}

/** Whether a plugin of ABI `abi` gets Node.systemUUID (1.4). */
export function speaksSystemUUID(abi: string): boolean {
  return abiMinorOf(abi) >= 4;
}

/**
 * `request` without Node.systemUUID on its `node` (the instance methods'). Load balancer node lists never carry it
 * (controllers/convert.ts), so kept lists keep their identity.
 */
export function withoutSystemUUID<M extends MethodName>(request: Requests[M]): Requests[M] {
  const node = (request as { node?: Node }).node;
  if (node === undefined || node.systemUUID === undefined) return request;
  const { systemUUID: _dropped, ...older } = node;
  return { ...request, node: older };
}

// Where a provider's module comes from while the CCM runs: a file (a mounted ConfigMap) or a ConfigMap read through
// the API. A source hands over complete revisions only (bytes plus the detached signature shipped with them); it
// never judges them: digest, signature and ABI checks belong to the swap.
import type { KubeObject } from '../../kube/client/wire.ts';

export interface SourceRevision {
  bytes: Uint8Array;
  /** The detached signature (base64) shipped next to the module, when there is one. */
  signature: string | undefined;
  /** For logs and events, e.g. `configmap kube-system/devcloud-plugin[devcloud.wasm] rv 1234`. */
  origin: string;
  /** The ConfigMap the revision came from (events about a refused module are recorded on it). */
  object: KubeObject | undefined;
  /** When the source noticed the revision (ms since the epoch): the start of a swap's measured duration. */
  noticedAt: number;
}

export type RevisionListener = (revision: SourceRevision) => void;

export interface RevisionSource {
  /** E.g. `file /etc/wasm-ccm/plugins/devcloud.wasm`. */
  readonly description: string;
  /**
   * Reads the current revision (rejects when there is none: a missing file, ConfigMap or key), then reports every
   * later one to `onRevision` until stop().
   */
  start(onRevision: RevisionListener): Promise<SourceRevision>;
  stop(): Promise<void>;
}

export class SourceError extends Error {
  override name = 'SourceError';
}

/** The `<name>.sig` convention for detached signatures next to a module. */
export function signatureName(name: string): string {
  return `${name}.sig`;
}

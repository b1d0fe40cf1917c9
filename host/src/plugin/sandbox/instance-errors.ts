// How a call to one instance can fail, below the ABI: the envelope layer turns these into the named provider errors.

export type InstanceFailureKind =
  /** The call ran past its deadline; the worker was terminated. */
  | 'timeout'
  /** The guest trapped (unreachable, out-of-bounds access, stack overflow, out of memory). */
  | 'trap'
  /** The guest went over a limit (kernel memory budget, output size). */
  | 'limit'
  /** The worker died (resource limits, crash) or was already gone. */
  | 'crash'
  /** The export returned a non-zero code. */
  | 'nonZeroReturn'
  /** The guest set an Extism error (error_set). */
  | 'guestError'
  /** The export returned 0 without an output. */
  | 'noOutput'
  /** The module has no such export. */
  | 'noSuchExport'
  /** The input was larger than the input limit. */
  | 'inputTooLarge';

const INSTANCE_LOST: ReadonlySet<InstanceFailureKind> = new Set(['timeout', 'trap', 'limit', 'crash']);

export class InstanceCallError extends Error {
  override name = 'InstanceCallError';
  readonly kind: InstanceFailureKind;
  constructor(kind: InstanceFailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
  /** True when the instance that served the call is gone and must be replaced. */
  get instanceLost(): boolean {
    return INSTANCE_LOST.has(this.kind);
  }
}

export class InstanceStartError extends Error {
  override name = 'InstanceStartError';
}

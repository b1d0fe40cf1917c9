// Kept lists (ABI 1.2, ABI.md "Kept lists"): the host sends a large list that repeats across calls (the load balancer
// node list) once per instance with a reference number, and afterwards only the reference. The generated exports
// resolve the reference here before the provider method runs, so providers still get a plain `req.nodes`.
import { ErrorCode } from "../abi/types.generated";
import { PluginError } from "../errors";
import { writeError } from "./dispatch";

/** The list the host sent last with a reference, per reference field. One per instance (module globals). */
export class KeptList<T> {
  ref: i32 = 0;
  /** What calls are handed: the kept list, unless a call changed it (see resolve). */
  list: Array<T> = new Array<T>();
  /** The list as the host sent it, never handed out. */
  sent: Array<T> = new Array<T>();

  /**
   * The list a request means. Without a reference (ref 0): `sent` itself. With one and a non-empty `sent`: `sent`,
   * which is kept under `ref`, replacing the previous list. With one and an empty `sent`: the kept list, or null when
   * `ref` is not the one kept (the caller answers unknownListRef). The elements are shared with later calls. The array
   * is too while no call changes it: copying 1,000 references per call (a write barrier each) was a tenth of a load
   * balancer sync's guest time. A provider that sorts or filters it in place, then or later, gets a fresh copy at the
   * next call, so what it did never changes what another call sees.
   */
  resolve(ref: i32, sent: Array<T>): Array<T> | null {
    if (ref == 0) return sent;
    if (sent.length > 0) {
      this.ref = ref;
      this.sent = sent;
      this.list = sent.slice(0);
      return this.list;
    }
    if (ref != this.ref) return null;
    if (!sameElements(this.list, this.sent)) this.list = this.sent.slice(0);
    return this.list;
  }
}

function sameElements<T>(a: Array<T>, b: Array<T>): bool {
  const length = a.length;
  if (length != b.length) return false;
  for (let i = 0; i < length; i++) {
    if (changetype<usize>(unchecked(a[i])) != changetype<usize>(unchecked(b[i]))) return false;
  }
  return true;
}

/**
 * Answers the error the host recognizes as "send the list again": Invalid with a message starting with
 * `unknown <field> `. The host then re-sends the whole list once on this instance.
 */
export function unknownListRef(field: string, ref: i32): void {
  writeError(
    new PluginError(
      ErrorCode.Invalid,
      "unknown " + field + " " + ref.toString() + ": this instance keeps no such list (the host re-sends it)",
    ),
  );
}

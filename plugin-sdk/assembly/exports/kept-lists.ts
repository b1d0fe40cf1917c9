// Kept lists (ABI 1.2, ABI.md "Kept lists"): the host sends a large list that repeats across calls (the load balancer
// node list) once per instance with a reference number, and afterwards only the reference. The generated exports
// resolve the reference here before the provider method runs, so providers still get a plain `req.nodes`.
import { ErrorCode } from "../abi/types.generated";
import { PluginError } from "../errors";
import { writeError } from "./dispatch";

/** The list the host sent last with a reference, per reference field. One per instance (module globals). */
export class KeptList<T> {
  ref: i32 = 0;
  list: Array<T> = new Array<T>();

  /**
   * The list a request means. Without a reference (ref 0): `sent` itself. With one and a non-empty `sent`: `sent`,
   * which is kept under `ref`, replacing the previous list. With one and an empty `sent`: the kept list, or null when
   * `ref` is not the one kept (the caller answers unknownListRef). The provider gets a copy of the array, so sorting
   * or filtering it in place cannot change what the next call sees; the elements themselves are shared.
   */
  resolve(ref: i32, sent: Array<T>): Array<T> | null {
    if (ref == 0) return sent;
    if (sent.length > 0) {
      this.ref = ref;
      this.list = sent;
      return sent.slice(0);
    }
    if (ref != this.ref) return null;
    return this.list.slice(0);
  }
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

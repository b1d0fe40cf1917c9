// AssemblyScript's abort handler. Plugins are compiled with `--use abort=__ccm_abort` so the module does not import
// env.abort (which the sandbox does not provide). A failed assertion, an out-of-bounds index or running out of memory
// lands here: the reason goes to the host log through ccm_log, then the call traps, which the host reports as Internal.
import { ccm_log } from "./imports";
import { Memory } from "@extism/as-pdk";

let aborting = false;

@global
function __ccm_abort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  // Logging allocates; if the abort came from the allocator itself, a second abort must not recurse.
  if (!aborting) {
    aborting = true;
    const text =
      "plugin aborted: " +
      (message !== null ? message : "(no message)") +
      " at " +
      (fileName !== null ? fileName : "?") +
      ":" +
      line.toString() +
      ":" +
      column.toString();
    let json = '{"level":"error","message":"';
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c == 0x22 || c == 0x5c) json += "\\" + String.fromCharCode(c);
      else if (c >= 0x20) json += String.fromCharCode(c);
    }
    json += '","fields":{}}';
    const mem = Memory.allocateString(json);
    ccm_log(mem.offset);
  }
  unreachable();
}

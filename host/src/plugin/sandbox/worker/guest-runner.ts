// Runs one call of an export inside the worker and reports the outcome through the channel. The export is called
// directly (not through plugin.call) so its i32 return code is seen, through WebAssembly.promising so that it may
// suspend on a host function (guest-host-functions.ts) while the worker's other instances run; the kernel (guest-kernel.ts) captured the
// output and error the guest set. An error any import raised during the call (GuestFaults) decides the outcome even
// when the guest caught it: the call fails with the first such error and the instance is retired.
import type { Plugin } from '@extism/extism';
import { CallOutcome, type CallOutcomeValue, Channel } from '../channel.ts';
import { errorMessage } from '../../../util/error-message.ts';
import { GuestAddressError, GuestArgumentError, type GuestFaults, GuestLimitError } from './guest-faults.ts';
import type { GuestKernel } from './guest-kernel.ts';

export interface RunOutcome {
  outcome: CallOutcomeValue;
  /** The return code (nonZeroReturn), else 0. */
  returnCode: number;
  /** Output bytes (output) or a message (every other outcome). */
  bytes: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class GuestRunner {
  readonly #plugin: Plugin;
  readonly #exports: WebAssembly.Exports;
  /** Each export called so far, wrapped by WebAssembly.promising once. */
  readonly #promising = new Map<string, () => Promise<unknown>>();
  readonly #kernel: GuestKernel;
  readonly #faults: GuestFaults;
  readonly #memoryCapBytes: number;
  /** Set after a trap, a limit or any import's error: the guest's state may be inconsistent, so the instance must go. */
  poisoned = false;

  constructor(
    plugin: Plugin,
    instance: WebAssembly.Instance,
    guest: { kernel: GuestKernel; faults: GuestFaults },
    memoryCapBytes: number,
  ) {
    this.#plugin = plugin;
    this.#exports = instance.exports;
    this.#kernel = guest.kernel;
    this.#faults = guest.faults;
    this.#memoryCapBytes = memoryCapBytes;
  }

  async run(exportName: string, input: Uint8Array): Promise<RunOutcome> {
    if (!Object.hasOwn(this.#exports, exportName) || typeof this.#exports[exportName] !== 'function') {
      return message(CallOutcome.noSuchExport, `the plugin has no export '${exportName}'`);
    }
    this.#kernel.beginCall(input);
    this.#faults.reset();
    let result: RunOutcome;
    try {
      const returned: unknown = await this.#export(exportName)();
      result = this.#faultOutcome(null) ?? this.#collect(returned);
    } catch (err) {
      this.poisoned = true;
      result = this.#faultOutcome(err) ?? this.#failure(err);
    } finally {
      this.#kernel.endCall();
      // Without a reset after every call js-sdk 1.0.3 runs out of block indices at call #16,383. reset() is async
      // in signature only: it resets synchronously (the plugin is not active), so the call path needs no await.
      void this.#plugin.reset();
    }
    return result;
  }

  #export(exportName: string): () => Promise<unknown> {
    let fn = this.#promising.get(exportName);
    if (fn === undefined) {
      fn = WebAssembly.promising(this.#exports[exportName] as () => unknown) as () => Promise<unknown>;
      this.#promising.set(exportName, fn);
    }
    return fn;
  }

  #collect(returned: unknown): RunOutcome {
    const error = this.#kernel.error;
    const errorText = error ? decoder.decode(new Uint8Array(error.buffer, error.offset, error.length)) : '';
    if (returned !== 0) {
      const code = typeof returned === 'number' ? returned : -1;
      const what = typeof returned === 'number' ? `returned ${returned}` : 'returned no i32';
      return {
        outcome: CallOutcome.nonZeroReturn,
        returnCode: code,
        bytes: encoder.encode(errorText ? `${what}: ${errorText}` : what),
      };
    }
    if (error) return message(CallOutcome.guestError, errorText);
    const output = this.#kernel.output;
    if (!output) return message(CallOutcome.noOutput, 'the export returned 0 without setting an output');
    // A view, not a copy: the worker copies it into the channel before the blocks are reset.
    return {
      outcome: CallOutcome.output,
      returnCode: 0,
      bytes: new Uint8Array(output.buffer, output.offset, output.length),
    };
  }

  /**
   * The outcome the call's first import error dictates, if there was one. `thrown`: what the export threw, or null
   * when it returned (the guest caught the import's error and went on).
   */
  #faultOutcome(thrown: unknown): RunOutcome | null {
    const fault = this.#faults.take();
    if (fault === null) return null;
    this.poisoned = true;
    const caught = thrown === null;
    // An error the guard could not record is most likely what the export threw (a stack overflow inside the import).
    const error =
      fault.error ??
      (caught ? new Error('did not return and its error could not be recorded (stack exhausted?)') : thrown);
    const failure = this.#failure(error, fault.importName);
    if (!caught) return failure;
    const note = ' (the plugin caught this error and went on; its instance is retired)';
    return { ...failure, bytes: encoder.encode(decoder.decode(failure.bytes) + note) };
  }

  #failure(err: unknown, importName?: string): RunOutcome {
    if (err instanceof GuestLimitError) return message(CallOutcome.limit, err.message);
    return message(CallOutcome.trap, this.#describeTrap(err, importName));
  }

  #describeTrap(err: unknown, importName?: string): string {
    if (err instanceof GuestAddressError) return `the plugin passed a bad address: ${err.message}`;
    if (err instanceof GuestArgumentError) return `the plugin passed a bad argument: ${err.message}`;
    if (importName !== undefined && err instanceof Error) {
      return `the host function ${importName} failed: ${err.name}: ${err.message}`;
    }
    const text =
      err instanceof Error ? `${err.name === 'RuntimeError' ? 'trap' : err.name}: ${err.message}` : errorMessage(err);
    const memory = this.#exports.memory;
    if (memory instanceof WebAssembly.Memory && this.#memoryCapBytes > 0) {
      const used = memory.buffer.byteLength;
      // A guest whose allocator cannot grow further aborts (AssemblyScript) or traps on its own terms; the failed
      // request may have been large, so "near the cap" rather than "at the cap" is the sign.
      if (used >= this.#memoryCapBytes * 0.9) {
        return `${text} (linear memory at ${mib(used)} of its ${mib(this.#memoryCapBytes)} cap: the plugin likely ran out of memory)`;
      }
    }
    return text;
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1048576)} MiB`;
}

function message(outcome: CallOutcomeValue, text: string): RunOutcome {
  return { outcome, returnCode: 0, bytes: encoder.encode(text) };
}

/** Writes a finished call into the channel for the main thread. */
export function publishOutcome(channel: Channel, result: RunOutcome): void {
  let { outcome, bytes } = result;
  if (!channel.reserve(bytes.byteLength)) {
    outcome = CallOutcome.limit;
    bytes = encoder.encode(`the plugin's output of ${bytes.byteLength} bytes does not fit the channel`);
  }
  channel.payload.set(bytes, 0);
  channel.length = bytes.byteLength;
  channel.aux = result.returnCode;
  channel.kind = outcome;
}

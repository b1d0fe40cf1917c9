// The hot part of the Extism kernel, replaced for speed and for limits, while Extism's CallContext keeps owning the
// block table (so its config_get, var_*, length and log_* keep working on the same blocks).
//
// Every kernel function the import policy allows is served by wasm-ccm (this file and kernel-extras.ts), none by js-sdk
// itself, so that each runs under GuestFaults.guard (guest-faults.ts).
//
// Why replace it: a guest moves its input and output 8 bytes per host call (as-pdk's Host.input/Host.output), and in
// js-sdk 1.0.3 each of those calls decodes the address with several BigInt operations and a block lookup. Here the
// input is one DataView and each block's DataView is looked up once per call. Why limits: the kernel's blocks are
// host ArrayBuffers, outside the guest's capped linear memory and outside the worker's V8 heap limits, so `alloc`
// is charged against a per-call budget. And the input/output bookkeeping (input_*, output_set, error_set) is ours
// so the runner can call the export itself and see its i32 return code, which js-sdk 1.0.3 discards.
//
// ccm_input_read (ABI 1.1, a wasm-ccm host function, wired in guest-host-functions.ts) is served here too: it copies
// the input straight into the guest's linear memory, one host call for the whole input. So is the guest-memory side of
// ccm_http_bytes / ccm_http_answer_read (ABI 1.3): the request is read out of linear memory, the answer held here
// until the guest copies it in.
//
// Functions are installed through createPlugin's `functions` option under the kernel's namespace: js-sdk binds each
// with the CallContext as first argument and puts it over its own implementation in the import object.
import type { CallContext, ExtismPluginOptions } from '@extism/extism';
import { cutPluginMessageBytes } from '../plugin-message.ts';
import { GuestAddressError, GuestArgumentError, GuestLimitError } from './guest-faults.ts';

export { GuestAddressError, GuestArgumentError, GuestLimitError } from './guest-faults.ts';

/**
 * Blocks one call may make. Each is a few JS objects on the worker's V8 heap (js-sdk's Block, an ArrayBuffer, a
 * DataView) whatever its size: without a count, alloc(0) in a loop would fill that heap within the byte budget.
 */
export const MAX_BLOCKS_PER_CALL = 16_384;

export interface CapturedBytes {
  buffer: ArrayBuffer;
  offset: number;
  length: number;
}

const EMPTY_INPUT = new Uint8Array(0);

// The function type js-sdk's `functions` option takes (its arguments are typed loosely there).
export type KernelFunction = NonNullable<ExtismPluginOptions['functions']>[string][string];

/** Bytes held where they are: `copyTo` fills `target` with the first `target.length` of them. */
export interface HeldBytes {
  readonly byteLength: number;
  copyTo(target: Uint8Array): void;
}

export class GuestKernel {
  readonly #budgetBytes: number;
  readonly #maxOutputBytes: number;
  readonly #views: (DataView | undefined)[] = [];
  #input: Uint8Array = EMPTY_INPUT;
  #inputView: DataView = new DataView(EMPTY_INPUT.buffer);
  #inputLength = 0n;
  #inputAddress: bigint | null = null;
  #output: CapturedBytes | null = null;
  #error: CapturedBytes | null = null;
  #chargedBytes = 0;
  #blocks = 0;
  #memory: WebAssembly.Memory | null = null;
  #held: Uint8Array | HeldBytes = EMPTY_INPUT;

  constructor(budgetBytes: number, maxOutputBytes: number) {
    this.#budgetBytes = budgetBytes;
    this.#maxOutputBytes = maxOutputBytes;
  }

  /** Prepares a call's input. The kernel reads it during the call only: the caller may reuse its memory afterwards. */
  beginCall(input: Uint8Array): void {
    this.#input = input;
    this.#inputView = new DataView(input.buffer, input.byteOffset, input.byteLength);
    this.#inputLength = BigInt(input.byteLength);
    this.#inputAddress = null;
    this.#output = null;
    this.#error = null;
    this.#chargedBytes = 0;
    this.#blocks = 0;
    this.#held = EMPTY_INPUT;
  }

  get output(): CapturedBytes | null {
    return this.#output;
  }

  get error(): CapturedBytes | null {
    return this.#error;
  }

  /** The guest's linear memory, for the host functions that copy straight into it (ccm_input_read). */
  attachMemory(memory: WebAssembly.Memory | null): void {
    this.#memory = memory;
  }

  /**
   * ccm_input_read: copies the first `length` bytes of the call's input to guest memory at `address`, in one host call
   * instead of one per 8 bytes. The arguments arrive as signed i32s; both are read as unsigned, so a negative value is
   * an address or length past 2 GiB and fails the bounds checks like any other out-of-range value.
   */
  inputRead(address: number, length: number): void {
    this.#copyIn('ccm_input_read', 'an input', this.#input, address, length);
  }

  /**
   * `length` bytes of guest memory at `address` (read as unsigned, like inputRead's), as a view that is only valid
   * until the guest runs again (a memory.grow replaces the buffer). A range outside linear memory is an address error.
   */
  guestBytes(what: string, address: number, length: number): Uint8Array {
    const at = address >>> 0;
    const bytes = length >>> 0;
    return new Uint8Array(this.#memoryFor(what, at, bytes).buffer, at, bytes);
  }

  /**
   * Keeps a host function's answer until the guest copies it in (readHeld); forgotten at the end of the call. The
   * answer is bytes, or bytes kept elsewhere (the channel's payload) with what copies them.
   */
  hold(bytes: Uint8Array | HeldBytes): void {
    this.#held = bytes;
  }

  /** Holds a copy of held bytes that are kept elsewhere, before that place is written over. */
  settleHeld(): void {
    const held = this.#held;
    if (held instanceof Uint8Array) return;
    const copy = new Uint8Array(held.byteLength);
    held.copyTo(copy);
    this.#held = copy;
  }

  /** Copies the first `length` held bytes to guest memory at `address` (checked as inputRead does); forgets them. */
  readHeld(what: string, address: number, length: number): void {
    const held = this.#held;
    this.#held = EMPTY_INPUT;
    this.#copyIn(what, 'an answer', held, address, length);
  }

  #copyIn(what: string, noun: string, source: Uint8Array | HeldBytes, address: number, length: number): void {
    const at = address >>> 0;
    const bytes = length >>> 0;
    if (bytes > source.byteLength) {
      throw new GuestAddressError(`${what}: asked for ${bytes} bytes of ${noun} of ${source.byteLength}`);
    }
    const memory = this.#memoryFor(what, at, bytes);
    if (bytes === 0) return;
    const target = new Uint8Array(memory.buffer, at, bytes);
    if (source instanceof Uint8Array) target.set(source.subarray(0, bytes));
    else source.copyTo(target);
  }

  #memoryFor(what: string, at: number, bytes: number): WebAssembly.Memory {
    const memory = this.#memory;
    if (memory === null) throw new GuestAddressError(`${what}: the plugin exports no memory`);
    // Read at every call: the guest may have grown its memory (which replaces the buffer) since the last one.
    const size = memory.buffer.byteLength;
    if (at + bytes > size) {
      throw new GuestAddressError(
        `${what}: ${bytes} bytes at address 0x${at.toString(16)} run past the end of linear memory (${size} bytes)`,
      );
    }
    return memory;
  }

  /** Forgets the call's blocks; Extism's plugin.reset() drops them on its side. */
  endCall(): void {
    this.#views.length = 0;
    this.#input = EMPTY_INPUT;
    this.#inputView = new DataView(EMPTY_INPUT.buffer);
    this.#held = EMPTY_INPUT;
  }

  /**
   * Charges a host-made block (a host function's answer) against the call's budget and block count; false when it
   * would go over either. Charge only what is then made: nothing is given back.
   */
  tryCharge(bytes: number): boolean {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`cannot charge ${bytes} bytes`);
    if (bytes > this.#budgetBytes - this.#chargedBytes || this.#blocks >= MAX_BLOCKS_PER_CALL) return false;
    this.#chargedBytes += bytes;
    this.#blocks++;
    return true;
  }

  /** Stores host-made bytes as a new block, charged; a limit error when the budget does not have room. */
  storeCharged(context: CallContext, what: string, bytes: Uint8Array): bigint {
    if (!this.tryCharge(bytes.byteLength)) {
      throw new GuestLimitError(
        `${what}: ${bytes.byteLength} bytes do not fit the kernel memory budget left for this call`,
      );
    }
    return context.store(bytes.byteLength === 0 ? new Uint8Array(1) : bytes.slice());
  }

  // Checked before anything is made: a size the guest gives must be a whole number of bytes within the budget, and
  // only an allocation that succeeded is charged. Charging first would let a negative size lower the total, and a
  // failed allocation the guest catches (Wasm exception handling) leave the budget larger by that much.
  #alloc(context: CallContext, size: unknown): bigint {
    if (typeof size !== 'bigint' || size < 0n) {
      throw new GuestArgumentError(`alloc: size ${String(size)} is not a byte count`);
    }
    const left = this.#budgetBytes - this.#chargedBytes;
    if (size > BigInt(left)) {
      throw new GuestLimitError(
        `the plugin allocated more than its kernel memory budget of ${mib(this.#budgetBytes)} in one call ` +
          `(asked for ${size} bytes with ${this.#chargedBytes} in use)`,
      );
    }
    if (this.#blocks >= MAX_BLOCKS_PER_CALL) {
      throw new GuestLimitError(`the plugin made more than ${MAX_BLOCKS_PER_CALL} kernel blocks in one call`);
    }
    const bytes = Number(size);
    const address = context.alloc(bytes);
    this.#chargedBytes += bytes;
    this.#blocks++;
    return address;
  }

  /** The whole content of the block at `address`, as Extism hands blocks to host functions. */
  blockBytes(context: CallContext, address: bigint): Uint8Array {
    const view = this.#view(context, address);
    return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  }

  functions(): Record<string, KernelFunction> {
    return {
      alloc: (context: CallContext, size: bigint): bigint => this.#alloc(context, size),
      // Blocks are released by plugin.reset() after the call; freeing early would not return budget anyway.
      free: (_context: CallContext, address: bigint): void => {
        this.#views[blockIndex(address)] = undefined;
      },
      input_offset: (context: CallContext): bigint => {
        this.#inputAddress ??= context.store(storable(this.#input));
        return this.#inputAddress;
      },
      input_length: (): bigint => this.#inputLength,
      input_load_u8: (_context: CallContext, address: bigint): number => this.#inputView.getUint8(blockOffset(address)),
      input_load_u64: (_context: CallContext, address: bigint): bigint =>
        this.#inputView.getBigUint64(blockOffset(address), true),
      load_u8: (context: CallContext, address: bigint): number =>
        this.#view(context, address).getUint8(blockOffset(address)),
      load_u64: (context: CallContext, address: bigint): bigint =>
        this.#view(context, address).getBigUint64(blockOffset(address), true),
      store_u8: (context: CallContext, address: bigint, value: number): void => {
        this.#view(context, address).setUint8(blockOffset(address), value);
      },
      store_u64: (context: CallContext, address: bigint, value: bigint): void => {
        this.#view(context, address).setBigUint64(blockOffset(address), value, true);
      },
      output_set: (context: CallContext, address: bigint, length: bigint): void => {
        if (length < 0n) throw new GuestArgumentError(`output_set: length ${length} is negative`);
        const bytes = Number(length);
        if (bytes > this.#maxOutputBytes) {
          throw new GuestLimitError(
            `the plugin's output of ${bytes} bytes is above the limit of ${mib(this.#maxOutputBytes)}`,
          );
        }
        const view = this.#view(context, address);
        const offset = blockOffset(address);
        if (offset + bytes > view.byteLength) {
          throw new GuestAddressError(
            `output_set: ${bytes} bytes at offset ${offset} run past a block of ${view.byteLength}`,
          );
        }
        this.#output = { buffer: view.buffer as ArrayBuffer, offset, length: bytes };
      },
      // The message goes into the call's error, and on to logs and Events: kept to MAX_PLUGIN_MESSAGE_BYTES.
      error_set: (context: CallContext, address: bigint): void => {
        const view = this.#view(context, address);
        const message = cutPluginMessageBytes(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
        this.#error = { buffer: message.buffer as ArrayBuffer, offset: message.byteOffset, length: message.byteLength };
      },
    };
  }

  #view(context: CallContext, address: bigint): DataView {
    const index = blockIndex(address);
    let view = this.#views[index];
    if (view === undefined) {
      const block = context.read(address);
      if (block === null) throw new GuestAddressError(`address 0x${address.toString(16)} names no memory block`);
      view = new DataView(block.arrayBuffer());
      this.#views[index] = view;
    }
    return view;
  }
}

// What Extism's store() takes as a block of exactly these bytes: it keeps a Uint8Array's whole ArrayBuffer, even
// behind a view of part of it, and needs at least one byte.
function storable(input: Uint8Array): Uint8Array {
  if (input.byteLength === 0) return new Uint8Array(1);
  return input.byteOffset === 0 && input.byteLength === input.buffer.byteLength ? input : input.slice();
}

// Extism addresses are block index << 48 | offset within the block. (Measured: BigInt.asUintN is as fast as
// splitting a double here, and simpler.)
function blockIndex(address: bigint): number {
  return Number(address >> 48n);
}

function blockOffset(address: bigint): number {
  return Number(BigInt.asUintN(48, address));
}

function mib(bytes: number): string {
  if (bytes < 1048576) return `${bytes} bytes`;
  return `${(bytes / 1048576).toFixed(bytes % 1048576 === 0 ? 0 : 2)} MiB`;
}

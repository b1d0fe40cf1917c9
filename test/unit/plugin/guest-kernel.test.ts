// The kernel functions the worker installs over js-sdk's, against a stand-in for Extism's CallContext (a block
// table addressed as index << 48 | offset).
import type { CallContext } from '@extism/extism';
import { describe, expect, it } from 'vitest';
import { KERNEL_FUNCTIONS } from '../../../host/src/plugin/module/import-policy.ts';
import { GuestFaults } from '../../../host/src/plugin/sandbox/worker/guest-faults.ts';
import {
  GuestAddressError,
  GuestArgumentError,
  GuestKernel,
  GuestLimitError,
  MAX_BLOCKS_PER_CALL,
} from '../../../host/src/plugin/sandbox/worker/guest-kernel.ts';
import { kernelExtras, MAX_VARIABLE_BYTES } from '../../../host/src/plugin/sandbox/worker/kernel-extras.ts';

class FakeContext {
  blocks: (ArrayBuffer | null)[] = [new ArrayBuffer(1)];
  alloc(size: number | bigint): bigint {
    this.blocks.push(new ArrayBuffer(Number(size)));
    return BigInt(this.blocks.length - 1) << 48n;
  }
  store(bytes: Uint8Array): bigint {
    this.blocks.push(bytes.buffer as ArrayBuffer);
    return BigInt(this.blocks.length - 1) << 48n;
  }
  read(address: bigint): { arrayBuffer: () => ArrayBuffer } | null {
    const block = this.blocks[Number(address >> 48n)];
    return block ? { arrayBuffer: () => block } : null;
  }
}

type Fn = (context: CallContext, ...args: bigint[]) => unknown;

function setup(budget = 1024, maxOutput = 512) {
  const kernel = new GuestKernel(budget, maxOutput);
  const context = new FakeContext();
  const fns = kernel.functions() as unknown as Record<string, Fn>;
  const call = (name: string, ...args: Array<bigint | number>): unknown =>
    (fns[name] as (c: unknown, ...a: Array<bigint | number>) => unknown)(context, ...args);
  return { kernel, context, call };
}

describe('guest kernel', () => {
  it('serves the input 1 and 8 bytes at a time, and as a block when asked for its offset', () => {
    const { kernel, context, call } = setup();
    const input = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
    kernel.beginCall(input);
    expect(call('input_length')).toBe(20n);
    expect(call('input_load_u8', 19n)).toBe(20);
    expect(call('input_load_u64', 8n)).toBe(new DataView(input.buffer).getBigUint64(8, true));
    const address = call('input_offset') as bigint;
    expect(new Uint8Array(context.read(address)?.arrayBuffer() ?? new ArrayBuffer(0))).toEqual(input);
    expect(call('input_offset')).toBe(address); // stored once
    expect(() => call('input_load_u64', 16n)).toThrow(RangeError); // past the end
  });

  it('stores exactly the input as its block when the input is a view of part of a larger buffer', () => {
    const { kernel, context, call } = setup();
    const backing = Uint8Array.from({ length: 64 }, (_, i) => i);
    kernel.beginCall(backing.subarray(8, 13));
    expect(call('input_length')).toBe(5n);
    expect(call('input_load_u8', 0n)).toBe(8);
    const address = call('input_offset') as bigint;
    expect([...new Uint8Array(context.read(address)?.arrayBuffer() ?? new ArrayBuffer(0))]).toEqual([8, 9, 10, 11, 12]);
  });

  it('stores and loads through blocks, and captures the output', () => {
    const { kernel, call } = setup();
    kernel.beginCall(new Uint8Array(0));
    const block = call('alloc', 16n) as bigint;
    call('store_u64', block, 0x0807060504030201n);
    call('store_u8', block + 8n, 0xff);
    expect(call('load_u8', block + 3n)).toBe(4);
    expect(call('load_u64', block)).toBe(0x0807060504030201n);
    call('output_set', block + 2n, 7n);
    const output = kernel.output;
    expect(output && [...new Uint8Array(output.buffer, output.offset, output.length)]).toEqual([
      3, 4, 5, 6, 7, 8, 0xff,
    ]);
  });

  it('charges alloc and host-made blocks against the per-call budget, and starts afresh each call', () => {
    const { kernel, call } = setup(100);
    kernel.beginCall(new Uint8Array(0));
    call('alloc', 60n);
    expect(kernel.tryCharge(30)).toBe(true);
    expect(() => call('alloc', 11n)).toThrow(GuestLimitError);
    expect(() => call('alloc', 11n)).toThrow(
      'the plugin allocated more than its kernel memory budget of 100 bytes in one call (asked for 11 bytes with 90 in use)',
    );
    kernel.endCall();
    kernel.beginCall(new Uint8Array(0));
    expect(() => call('alloc', 100n)).not.toThrow();
  });

  it('refuses sizes that are not byte counts, and charges only allocations that succeeded', () => {
    const { kernel, context, call } = setup(100);
    kernel.beginCall(new Uint8Array(0));
    expect(() => call('alloc', -50n)).toThrow(GuestArgumentError);
    expect(() => call('alloc', -50n)).toThrow('alloc: size -50 is not a byte count');
    expect(() => call('alloc', 1.5)).toThrow(GuestArgumentError);
    expect(context.blocks).toHaveLength(1); // nothing was made
    // A negative size did not lower the charged total: the budget is still 100 bytes, not 200.
    expect(() => call('alloc', 101n)).toThrow(GuestLimitError);
    const realAlloc = context.alloc.bind(context);
    context.alloc = () => {
      throw new RangeError('Array buffer allocation failed');
    };
    expect(() => call('alloc', 60n)).toThrow(RangeError);
    context.alloc = realAlloc;
    // The failed allocation was not charged either.
    expect(() => call('alloc', 100n)).not.toThrow();
    expect(() => call('output_set', 0n, -1n)).toThrow('output_set: length -1 is negative');
  });

  it('counts blocks: alloc(0) in a loop stops at the per-call block limit', () => {
    const { kernel, call } = setup(1024);
    kernel.beginCall(new Uint8Array(0));
    for (let i = 0; i < MAX_BLOCKS_PER_CALL; i++) call('alloc', 0n);
    expect(() => call('alloc', 0n)).toThrow(`the plugin made more than ${MAX_BLOCKS_PER_CALL} kernel blocks`);
    expect(kernel.tryCharge(0)).toBe(false);
    kernel.endCall();
    kernel.beginCall(new Uint8Array(0));
    expect(() => call('alloc', 0n)).not.toThrow();
  });

  it('refuses outputs over the limit or past their block, and addresses naming no block', () => {
    const { kernel, call } = setup(4096, 64);
    kernel.beginCall(new Uint8Array(0));
    const block = call('alloc', 100n) as bigint;
    expect(() => call('output_set', block, 65n)).toThrow(/output of 65 bytes is above the limit/);
    const small = call('alloc', 8n) as bigint;
    expect(() => call('output_set', small + 4n, 8n)).toThrow(GuestAddressError);
    expect(() => call('load_u8', 99n << 48n)).toThrow(/names no memory block/);
  });

  describe('ccm_input_read', () => {
    const input = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
    function withMemory(pages = 1) {
      const { kernel } = setup();
      const memory = new WebAssembly.Memory({ initial: pages, maximum: 4 });
      kernel.attachMemory(memory);
      kernel.beginCall(input);
      return { kernel, memory };
    }

    it('copies the whole input, or its first bytes, to the address the guest gives', () => {
      const { kernel, memory } = withMemory();
      kernel.inputRead(100, 20);
      expect([...new Uint8Array(memory.buffer, 100, 20)]).toEqual([...input]);
      kernel.inputRead(0, 3);
      expect([...new Uint8Array(memory.buffer, 0, 4)]).toEqual([1, 2, 3, 0]);
    });

    it('accepts zero bytes anywhere within memory, also with an empty input', () => {
      const { kernel, memory } = withMemory();
      expect(() => kernel.inputRead(0, 0)).not.toThrow();
      expect(() => kernel.inputRead(65536, 0)).not.toThrow(); // one past the end, nothing written
      kernel.beginCall(new Uint8Array(0));
      expect(() => kernel.inputRead(12, 0)).not.toThrow();
      expect(new Uint8Array(memory.buffer).every((b) => b === 0)).toBe(true);
    });

    it('writes into memory the guest grew since the last call', () => {
      const { kernel, memory } = withMemory();
      memory.grow(1);
      kernel.inputRead(65536 + 10, 20);
      expect([...new Uint8Array(memory.buffer, 65536 + 10, 20)]).toEqual([...input]);
    });

    it('refuses addresses and lengths past the end of memory, and negative ones, writing nothing', () => {
      const { kernel, memory } = withMemory();
      expect(() => kernel.inputRead(65536 - 19, 20)).toThrow(GuestAddressError);
      expect(() => kernel.inputRead(65536 - 19, 20)).toThrow(
        'ccm_input_read: 20 bytes at address 0xffed run past the end of linear memory (65536 bytes)',
      );
      expect(() => kernel.inputRead(65537, 0)).toThrow(GuestAddressError);
      expect(() => kernel.inputRead(-1, 20)).toThrow(/address 0xffffffff run past the end/);
      expect(() => kernel.inputRead(-8, 4)).toThrow(GuestAddressError); // wraps to 4 GiB - 8, not to a small address
      expect(new Uint8Array(memory.buffer).every((b) => b === 0)).toBe(true);
    });

    it('refuses more bytes than the input has, and negative lengths', () => {
      const { kernel } = withMemory();
      expect(() => kernel.inputRead(0, 21)).toThrow('ccm_input_read: asked for 21 bytes of an input of 20');
      expect(() => kernel.inputRead(0, -1)).toThrow(/asked for 4294967295 bytes/);
    });

    it('is an address error when the plugin exports no memory', () => {
      const { kernel } = setup();
      kernel.beginCall(input);
      expect(() => kernel.inputRead(0, 4)).toThrow(/exports no memory/);
    });
  });

  describe('guest memory for ccm_http_bytes / ccm_http_answer_read', () => {
    function withMemory() {
      const { kernel } = setup();
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
      kernel.attachMemory(memory);
      kernel.beginCall(new Uint8Array(0));
      return { kernel, memory };
    }

    it('reads a range of guest memory, checked like ccm_input_read', () => {
      const { kernel, memory } = withMemory();
      new Uint8Array(memory.buffer).set([7, 8, 9], 65533);
      expect([...kernel.guestBytes('ccm_http_bytes', 65533, 3)]).toEqual([7, 8, 9]);
      expect(kernel.guestBytes('ccm_http_bytes', 65536, 0).byteLength).toBe(0);
      expect(() => kernel.guestBytes('ccm_http_bytes', 65534, 3)).toThrow(
        'ccm_http_bytes: 3 bytes at address 0xfffe run past the end of linear memory (65536 bytes)',
      );
      expect(() => kernel.guestBytes('ccm_http_bytes', 0, -1)).toThrow(GuestAddressError);
    });

    it('copies a held answer in once, and forgets it at the end of the call', () => {
      const { kernel, memory } = withMemory();
      kernel.hold(Uint8Array.of(1, 2, 3, 4));
      expect(() => kernel.readHeld('ccm_http_answer_read', 0, 5)).toThrow(
        'ccm_http_answer_read: asked for 5 bytes of an answer of 4',
      );
      kernel.hold(Uint8Array.of(1, 2, 3, 4));
      kernel.readHeld('ccm_http_answer_read', 10, 4);
      expect([...new Uint8Array(memory.buffer, 10, 4)]).toEqual([1, 2, 3, 4]);
      expect(() => kernel.readHeld('ccm_http_answer_read', 10, 1)).toThrow('of an answer of 0');
      kernel.hold(Uint8Array.of(5));
      kernel.endCall();
      kernel.beginCall(new Uint8Array(0));
      expect(() => kernel.readHeld('ccm_http_answer_read', 0, 1)).toThrow('of an answer of 0');
      expect(() => kernel.readHeld('ccm_http_answer_read', 0, 0)).not.toThrow();
    });
  });

  it('captures the error text the guest sets', () => {
    const { kernel, context, call } = setup();
    kernel.beginCall(new Uint8Array(0));
    const address = context.store(new TextEncoder().encode('it broke'));
    call('error_set', address);
    const error = kernel.error;
    expect(error && new TextDecoder().decode(new Uint8Array(error.buffer, error.offset, error.length))).toBe(
      'it broke',
    );
  });

  describe('the kernel functions js-sdk would serve itself', () => {
    function extras(config: Record<string, string> = {}) {
      const { kernel, context, call } = setup(64);
      const logs: string[] = [];
      const fns = kernelExtras({
        kernel,
        config,
        maxLogRecordBytes: 8,
        log: (level, text) => logs.push(`${level}:${text}`),
      });
      const extra = (name: string, ...args: bigint[]): unknown =>
        (fns[name] as unknown as (c: unknown, ...a: bigint[]) => unknown)(context, ...args);
      const text = (address: bigint): string =>
        new TextDecoder().decode(context.read(address)?.arrayBuffer() ?? new ArrayBuffer(0));
      const store = (value: string): bigint => context.store(new TextEncoder().encode(value));
      kernel.beginCall(new Uint8Array(0));
      return { kernel, context, call, extra, text, store, logs };
    }

    it('serves every kernel function the import policy allows', () => {
      const { kernel } = setup();
      const served = new Set([
        ...Object.keys(kernel.functions()),
        ...Object.keys(kernelExtras({ kernel, config: {}, maxLogRecordBytes: 1, log: () => {} })),
      ]);
      expect(Object.keys(KERNEL_FUNCTIONS).filter((name) => !served.has(name))).toEqual([]);
    });

    it('answers length and config_get as js-sdk does, charging the blocks it makes', () => {
      const { extra, text, store } = extras({ region: 'x'.repeat(40) });
      expect(extra('length', store('abc'))).toBe(3n);
      expect(extra('length_unsafe', 77n << 48n)).toBe(0n);
      expect(extra('config_get', store('missing'))).toBe(0n);
      expect(text(extra('config_get', store('region')) as bigint)).toBe('x'.repeat(40));
      // 40 of the 64 bytes are used: a second copy does not fit.
      expect(() => extra('config_get', store('region'))).toThrow(GuestLimitError);
    });

    it('keeps variables across calls, copied, within their size limit', () => {
      const { kernel, extra, text, store } = extras();
      const value = store('v1');
      extra('var_set', store('k'), value);
      kernel.endCall();
      kernel.beginCall(new Uint8Array(0));
      expect(text(extra('var_get', store('k')) as bigint)).toBe('v1');
      extra('var_set', store('k'), 0n);
      expect(extra('var_get', store('k'))).toBe(0n);
      const big = store('x'.repeat(MAX_VARIABLE_BYTES));
      expect(() => extra('var_set', store('k'), big)).toThrow(/variables would take more than 1048576 bytes/);
    });

    it('forwards log records, decoded only up to the record limit', () => {
      const { extra, store, logs } = extras();
      extra('log_warn', store('short'));
      extra('log_info', store('a record that is too long'));
      extra('log_debug', 5n << 48n);
      expect(logs).toEqual(['warn:short', 'info:a record ', 'error:log_debug: bad block address 0x5000000000000']);
    });
  });

  describe('fault guard', () => {
    it('keeps the first error an import threw, passes it on, and forgets it at the next call', () => {
      const faults = new GuestFaults();
      const fail = faults.guard('store_u8', (n: number): number => {
        if (n < 0) throw new GuestAddressError(`bad ${n}`);
        return n * 2;
      });
      expect(fail(2)).toBe(4);
      expect(faults.take()).toBeNull();
      expect(() => fail(-1)).toThrow('bad -1');
      expect(() => fail(-2)).toThrow('bad -2');
      expect(fail(3)).toBe(6); // a guest that caught the error may go on calling
      expect(faults.take()).toMatchObject({ importName: 'store_u8', error: { message: 'bad -1' } });
      faults.reset();
      expect(faults.take()).toBeNull();
    });

    it('guards every function of a table under its own name', () => {
      const faults = new GuestFaults();
      const guarded = faults.guardAll({
        ok: () => 1,
        broken: () => {
          throw new TypeError('nope');
        },
      });
      expect(guarded.ok?.()).toBe(1);
      expect(() => guarded.broken?.()).toThrow(TypeError);
      expect(faults.take()).toMatchObject({ importName: 'broken', error: { name: 'TypeError' } });
    });
  });
});

// The kernel functions the worker installs over js-sdk's, against a stand-in for Extism's CallContext (a block
// table addressed as index << 48 | offset).
import type { CallContext } from '@extism/extism';
import { describe, expect, it } from 'vitest';
import { GuestAddressError, GuestKernel, GuestLimitError } from '../../../host/src/plugin/worker/guest-kernel.ts';

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

  it('refuses outputs over the limit or past their block, and addresses naming no block', () => {
    const { kernel, call } = setup(4096, 64);
    kernel.beginCall(new Uint8Array(0));
    const block = call('alloc', 100n) as bigint;
    expect(() => call('output_set', block, 65n)).toThrow(/output of 65 bytes is above the limit/);
    const small = call('alloc', 8n) as bigint;
    expect(() => call('output_set', small + 4n, 8n)).toThrow(GuestAddressError);
    expect(() => call('load_u8', 99n << 48n)).toThrow(/names no memory block/);
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
});

// The kernel functions js-sdk 1.0.3 would otherwise serve itself (length, config_get, var_*, log_*), served here so
// that every import runs under the fault guard (guest-faults.ts) and every block the host makes is charged against
// the call's budget (config_get in a loop would otherwise make blocks without limit). Their behaviour follows js-sdk:
// an address that names no block reads as absent (length 0, no key) rather than failing.
//
// Variables differ on purpose: js-sdk keeps a block index, which its per-call reset turns into a dangling one, and a
// map that grows without bound across calls. Here a variable's value is copied and kept with the instance, within
// MAX_VARIABLE_BYTES of keys and values together.
import type { CallContext } from '@extism/extism';
import { GuestLimitError } from './guest-faults.ts';
import type { GuestKernel, KernelFunction } from './guest-kernel.ts';
import type { LogMessage } from './worker-protocol.ts';

export const MAX_VARIABLE_BYTES = 1024 * 1024;

export interface KernelExtrasOptions {
  kernel: GuestKernel;
  /** Extism config (config_get): only what the operator exposed. */
  config: Readonly<Record<string, string>>;
  /** Largest log record forwarded; longer ones are decoded only this far (log() drops them anyway). */
  maxLogRecordBytes: number;
  log: (level: LogMessage['level'], text: string) => void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function kernelExtras(options: KernelExtrasOptions): Record<string, KernelFunction> {
  const { kernel, config } = options;
  const variables = new Map<string, Uint8Array>();
  let variableBytes = 0;
  const block = (context: CallContext, address: bigint): Uint8Array | null =>
    address === 0n || context.read(address) === null ? null : kernel.blockBytes(context, address);
  const text = (context: CallContext, address: bigint, limit = Infinity): string | null => {
    const bytes = block(context, address);
    return bytes === null ? null : decoder.decode(bytes.subarray(0, Math.min(bytes.byteLength, limit)));
  };
  const length = (context: CallContext, address: bigint): bigint => BigInt(block(context, address)?.byteLength ?? 0);
  const logAt =
    (level: LogMessage['level']) =>
    (context: CallContext, address: bigint): void => {
      const record = text(context, address, options.maxLogRecordBytes + 1);
      options.log(
        record === null ? 'error' : level,
        record ?? `log_${level}: bad block address 0x${address.toString(16)}`,
      );
    };
  return {
    length,
    length_unsafe: length,
    config_get: (context: CallContext, address: bigint): bigint => {
      const key = text(context, address);
      if (key === null || !Object.hasOwn(config, key)) return 0n;
      return kernel.storeCharged(context, 'config_get', encoder.encode(config[key]));
    },
    var_get: (context: CallContext, address: bigint): bigint => {
      const value = variables.get(text(context, address) ?? '');
      return value === undefined ? 0n : kernel.storeCharged(context, 'var_get', value);
    },
    var_set: (context: CallContext, address: bigint, valueAddress: bigint): void => {
      const key = text(context, address);
      if (key === null) return;
      const old = variables.get(key);
      const keyBytes = encoder.encode(key).byteLength;
      if (old !== undefined) {
        variables.delete(key);
        variableBytes -= keyBytes + old.byteLength;
      }
      const value = block(context, valueAddress);
      if (value === null) return;
      if (variableBytes + keyBytes + value.byteLength > MAX_VARIABLE_BYTES) {
        throw new GuestLimitError(`var_set: the plugin's variables would take more than ${MAX_VARIABLE_BYTES} bytes`);
      }
      variables.set(key, value.slice());
      variableBytes += keyBytes + value.byteLength;
    },
    log_debug: logAt('debug'),
    log_info: logAt('info'),
    log_warn: logAt('warn'),
    log_error: logAt('error'),
  };
}

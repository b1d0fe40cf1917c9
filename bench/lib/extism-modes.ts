// Stock @extism/extism 1.0.3, for comparison with the isolated runtime: foreground (the guest runs on the calling
// thread) and runInWorker (Extism's own worker). Host functions the module imports are stubbed, except ccm_input_read,
// which copies the input into the guest's memory in foreground mode; in runInWorker mode host functions run on this
// thread, away from the guest's memory, so it is a stub there and callers use exports that read the input through
// the kernel (as-pdk).
import createPlugin, { type CallContext, type Plugin } from '@extism/extism';

export interface RawCaller {
  call(exportName: string, input: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

export async function extismCaller(module: WebAssembly.Module, runInWorker: boolean): Promise<RawCaller> {
  let input: Uint8Array = new Uint8Array(0);
  let memory: WebAssembly.Memory | null = null;
  const functions = {
    'extism:host/user': {
      ccm_http: (): bigint => 0n,
      ccm_log: (): void => {},
      ccm_now_ms: (): bigint => BigInt(Date.now()),
      ccm_input_read: (_context: CallContext, address: number, length: number): void => {
        if (memory === null) throw new Error('ccm_input_read is not available in runInWorker mode');
        new Uint8Array(memory.buffer, address, length).set(input.subarray(0, length));
      },
    },
  };
  const plugin: Plugin = await createPlugin(module, { useWasi: false, runInWorker, functions });
  if (!runInWorker) {
    const exported = (await plugin.getInstance()).exports.memory;
    memory = exported instanceof WebAssembly.Memory ? exported : null;
  }
  return {
    async call(exportName, bytes) {
      input = bytes;
      const output = await plugin.call(exportName, bytes);
      // Without a reset js-sdk 1.0.3 runs out of block indices at call #16,383.
      await plugin.reset();
      if (output === null) throw new Error(`${exportName} gave no output`);
      return output.bytes();
    },
    close: () => plugin.close(),
  };
}

// Stock @extism/extism 1.0.3, for comparison with the isolated runtime: foreground (the guest runs on the calling
// thread) and runInWorker (Extism's own worker). Host functions the module imports are stubbed.
import createPlugin, { type Plugin } from '@extism/extism';

const stubHostFunctions = {
  'extism:host/user': {
    ccm_http: (): bigint => 0n,
    ccm_log: (): void => {},
    ccm_now_ms: (): bigint => BigInt(Date.now()),
  },
};

export interface RawCaller {
  call(exportName: string, input: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

export async function extismCaller(module: WebAssembly.Module, runInWorker: boolean): Promise<RawCaller> {
  const plugin: Plugin = await createPlugin(module, { useWasi: false, runInWorker, functions: stubHostFunctions });
  return {
    async call(exportName, input) {
      const output = await plugin.call(exportName, input);
      // Without a reset js-sdk 1.0.3 runs out of block indices at call #16,383.
      await plugin.reset();
      if (output === null) throw new Error(`${exportName} gave no output`);
      return output.bytes();
    },
    close: () => plugin.close(),
  };
}

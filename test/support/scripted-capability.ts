// Test fakes script only the methods a test exercises; every other method of a capability comes from the generated
// facade table, so a method added to the ABI needs no entry in each fake. An unscripted method rejects with
// UnscriptedMethodError, naming it; an optional method of a later minor is absent unless scripted.
import type { Capability, MethodName } from '../../host/src/abi/index.ts';
import type { Capabilities } from '../../host/src/cloudprovider/index.ts';
import { PLUGIN_CAPABILITIES, type PluginCall } from '../../host/src/plugin/runtime/capabilities.generated.ts';

export class UnscriptedMethodError extends Error {
  readonly code = 'FAKE_UNSCRIPTED_METHOD';
  readonly method: MethodName;
  constructor(method: MethodName) {
    super(`the fake does not script ${method}`);
    this.method = method;
    this.name = 'UnscriptedMethodError';
  }
}

/**
 * The capability `capability` with the `scripted` methods; the others call `onUnscripted` (to record the call, say)
 * and then reject with UnscriptedMethodError.
 */
export function scriptedCapability<C extends Capability>(
  capability: C,
  scripted: Partial<Capabilities[C]>,
  onUnscripted: (method: MethodName, request: unknown) => Promise<void> = async () => {},
): Capabilities[C] {
  const unscripted: PluginCall = async (method, request) => {
    await onUnscripted(method, request);
    throw new UnscriptedMethodError(method);
  };
  // Optional methods (later minors) are absent unless scripted, as from a plugin that does not export them.
  return { ...PLUGIN_CAPABILITIES[capability]({ call: unscripted, exports: () => false }), ...scripted };
}

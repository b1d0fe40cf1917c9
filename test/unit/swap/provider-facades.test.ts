// Both provider facades carry every method of every capability, and each method does what the ABI definition's
// facade metadata says: the Wasm provider makes one ABI call whose request is the arguments under their field
// names and answers the field `returns` names; the swappable provider forwards the same arguments and answer. An
// optional method of a later minor is on the Wasm provider only when the plugin exports it.
// The expectations are computed from plugin-sdk/abi/v1.json here, not from the generated code they check.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../scripts/gen-abi.ts';
import type { Facade } from '../../../plugin-sdk/codegen/model.ts';
import { CAPABILITIES, type Capability, keptList, type MethodName, type Node } from '../../../host/src/abi/index.ts';
import { NotImplementedError, prepareNodes, type Provider } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/runtime/wasm-provider.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { IMPLEMENTATION_OF } from '../../../host/src/plugin/swap/forwarders.generated.ts';
import { SwappableProvider } from '../../../host/src/plugin/swap/swappable-provider.ts';
import { ShadowSession } from '../../../host/src/plugin/swap/shadow.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';

const model = loadModel();
const ALL = new Set(Object.keys(CAPABILITIES) as Capability[]);

interface Recorded {
  method: string;
  request: unknown;
}

/** A plugin that records each call and answers every response field with a value naming the method and field. */
function recordingPlugin(calls: Recorded[], exportsOptional = true, prepared: unknown[] = []): LoadedPlugin {
  const plugin = {
    capabilities: ALL,
    exports: () => exportsOptional,
    prepareNodes: (nodes: unknown) => prepared.push(nodes),
    call: async (method: MethodName, request: unknown) => {
      calls.push({ method, request });
      return cannedResponse(method);
    },
  };
  return plugin as unknown as LoadedPlugin;
}

function cannedResponse(method: string): Record<string, string> {
  const def = model.methods.find((m) => m.name === method)!;
  const fields = model.types.get(def.response)!.fields;
  return Object.fromEntries(fields.map((f) => [f.name, `${method}.${f.name}`]));
}

/** Arguments an object parameter can be told apart by (with the name and namespace shadow mode keys on). */
function argumentsOf(method: string, facade: Facade): unknown[] {
  return facade.params.map((p) =>
    p.type.kind === 'ref' ? { name: `${method}-${p.name}`, namespace: 'ns', uid: p.name } : `${method}-${p.name}`,
  );
}

function expectedAnswer(method: string, facade: Facade): unknown {
  const response = cannedResponse(method);
  if (facade.returns.kind === 'nothing') return undefined;
  return facade.returns.kind === 'response' ? response : response[facade.returns.field.name];
}

function capabilityOf(provider: Provider, capability: Capability): Record<string, (...args: unknown[]) => unknown> {
  const impl = IMPLEMENTATION_OF[capability](provider);
  expect(impl, `${capability} is served`).toBeDefined();
  return impl as unknown as Record<string, (...args: unknown[]) => unknown>;
}

function facades(exportsOptional = true): {
  wasm: WasmProvider;
  swappable: SwappableProvider;
  calls: Recorded[];
  prepared: unknown[];
} {
  const calls: Recorded[] = [];
  const prepared: unknown[] = [];
  const wasm = new WasmProvider(recordingPlugin(calls, exportsOptional, prepared));
  const swappable = new SwappableProvider({ provider: wasm, close: async () => {} }, { serves: ALL });
  return { wasm, swappable, calls, prepared };
}

/** What a capability carries besides its ABI methods: the load balancer's node-list hint (NodeListPreparer). */
const HINTS: Partial<Record<Capability, string[]>> = { loadBalancer: ['prepareNodes'] };

describe('provider facades', () => {
  it('have exactly the methods of every capability', () => {
    const { wasm, swappable } = facades();
    for (const capability of ALL) {
      const methods = model.methods
        .filter((m) => m.capability === capability && m.facade !== null)
        .map((m) => m.name)
        .concat(HINTS[capability] ?? [])
        .sort();
      expect(Object.keys(capabilityOf(wasm, capability)).sort(), `WasmProvider ${capability}`).toEqual(methods);
      expect(Object.keys(capabilityOf(swappable, capability)).sort(), `SwappableProvider ${capability}`).toEqual(
        methods,
      );
    }
    expect(model.methods.filter((m) => m.facade !== null && m.since === 0).length).toBe(
      Object.values(CAPABILITIES).reduce((n, methods) => n + methods.length, 0),
    );
  });

  it('give the node-list hint to the plugin serving calls now, as no call', async () => {
    const { swappable, calls, prepared } = facades();
    const balancer = swappable.loadBalancer()!;
    const nodes = keptList<Node>([]);
    prepareNodes(balancer, nodes);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]).toBe(nodes);
    // After a swap the same balancer object gives it to the new plugin only.
    const nextCalls: Recorded[] = [];
    const nextPrepared: unknown[] = [];
    const next = new WasmProvider(recordingPlugin(nextCalls, true, nextPrepared));
    await swappable.swap({ provider: next, close: async () => {} });
    const later = keptList<Node>([]);
    prepareNodes(balancer, later);
    expect(nextPrepared).toEqual([later]);
    expect(prepared).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(nextCalls).toEqual([]);
  });

  it('leave out an optional method the plugin does not export; the swappable one answers NotImplemented', async () => {
    const { wasm, swappable, calls } = facades(false);
    const optional = model.methods.filter((m) => m.since > 0 && m.facade !== null);
    expect(optional.map((m) => m.name)).toContain('instanceMetadataBatch');
    for (const m of optional) {
      expect(Object.keys(capabilityOf(wasm, m.capability as Capability))).not.toContain(m.name);
      const call = capabilityOf(swappable, m.capability as Capability)[m.name]!([]);
      await expect(call).rejects.toBeInstanceOf(NotImplementedError);
    }
    expect(calls).toEqual([]);
  });

  it('decline the batched instanceMetadata while a shadow candidate answers, so each node is compared', async () => {
    const { wasm, swappable, calls } = facades();
    const session = new ShadowSession({ candidate: wasm, policy: { calls: 5, seconds: 60 }, logger: silentLogger });
    swappable.setShadow(session);
    const batch = capabilityOf(swappable, 'instancesV2').instanceMetadataBatch!([]);
    await expect(batch).rejects.toBeInstanceOf(NotImplementedError);
    expect(calls).toEqual([]);
    const stop = new AbortController();
    const ended = session.finished(stop.signal);
    stop.abort();
    await ended;
    await capabilityOf(swappable, 'instancesV2').instanceMetadataBatch!([]);
    expect(calls.map((c) => c.method)).toEqual(['instanceMetadataBatch']);
  });

  for (const m of model.methods) {
    if (m.facade === null || m.capability === null) continue;
    const { facade, capability, name } = m;
    it(`${capability}.${name}: one ${name} call with the arguments as its request, on both facades`, async () => {
      const { wasm, swappable, calls } = facades();
      const args = argumentsOf(name, facade);
      const request = Object.fromEntries(facade.params.map((p, i) => [p.name, args[i]]));
      for (const provider of [wasm, swappable]) {
        calls.length = 0;
        const answer = await capabilityOf(provider, capability as Capability)[name]!(...args);
        expect(answer).toEqual(expectedAnswer(name, facade));
        expect(calls).toEqual([{ method: name, request }]);
      }
    });
  }
});

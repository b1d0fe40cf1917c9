// Node.systemUUID (ABI 1.4): the controllers put the kubelet's system UUID into the nodes of the instance methods, not
// into load balancer node lists, and the runtime keeps it from plugins of an earlier minor. Likewise the batched
// methods of 1.5 are called only on plugins that answered 1.5 and export them.
import { describe, expect, it } from 'vitest';
import { toABIInstanceNode, toABINode } from '../../../host/src/controllers/convert.ts';
import { speaksSystemUUID, withoutSystemUUID } from '../../../host/src/plugin/runtime/later-fields.ts';
import { testNode } from '../../../host/src/conformance/index.ts';
import { LoadedPlugin, type LoadedPluginParts } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { WasmProvider } from '../../../host/src/plugin/runtime/wasm-provider.ts';
import { DEFAULT_LIMITS } from '../../../host/src/plugin/config/options.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';

const wire = {
  metadata: { name: 'n1', uid: 'u1' },
  spec: { providerID: 'vsphere://4208b0e3-0000-4000-8000-000000000001' },
  status: { nodeInfo: { systemUUID: 'E3B00842-0000-0040-8000-000000000001' } },
} as Parameters<typeof toABINode>[0];

describe('Node.systemUUID', () => {
  it("is in the instance methods' node, not in a load balancer node list's", () => {
    expect(toABIInstanceNode(wire).systemUUID).toBe('E3B00842-0000-0040-8000-000000000001');
    expect(toABINode(wire)).not.toHaveProperty('systemUUID');
    const { status: _status, ...noStatus } = wire;
    expect(toABIInstanceNode(noStatus).systemUUID).toBe('');
  });

  it('goes to plugins of ABI 1.4 and later only', () => {
    expect(['1.0', '1.3', '2.4', 'x'].map(speaksSystemUUID)).toEqual([false, false, false, false]);
    expect(['1.4', '1.12'].map(speaksSystemUUID)).toEqual([true, true]);
    const node = { ...testNode({ name: 'n1' }), systemUUID: 'abc' };
    const older = withoutSystemUUID<'instanceMetadata'>({ node });
    expect(older.node).not.toHaveProperty('systemUUID');
    expect(older.node.name).toBe('n1');
    expect(node.systemUUID).toBe('abc');
    const noNode = { clusterName: 'c', service: { name: 's' } } as never;
    expect(withoutSystemUUID<'getLoadBalancer'>(noNode)).toBe(noNode);
  });
});

describe('the batched instance methods (ABI 1.5)', () => {
  const plugin = (abi: string, exports: string[]): LoadedPlugin =>
    new LoadedPlugin({
      description: { abi, providerName: 'p', version: '1', capabilities: ['instancesV2'], hasClusterID: false },
      sha256: '',
      capabilities: new Set(['instancesV2']),
      instances: {} as LoadedPluginParts['instances'],
      limits: DEFAULT_LIMITS,
      exports: new Set(exports),
      metrics: {} as LoadedPluginParts['metrics'],
      logger: silentLogger,
      hostGet: () => Promise.reject(new Error('unused')),
      onClose: () => {},
    });

  it('are used only from plugins of 1.5 or later that export them; the others are called per node', () => {
    const batch = ['ccm_instance_metadata_batch'];
    expect(plugin('1.5', batch).exports('instanceMetadataBatch')).toBe(true);
    expect(plugin('1.4', batch).exports('instanceMetadataBatch')).toBe(false);
    expect(plugin('1.5', []).exports('instanceMetadataBatch')).toBe(false);
    expect(plugin('1.0', []).exports('instanceMetadata')).toBe(false);
    const older = new WasmProvider(plugin('1.4', batch)).instancesV2()!;
    expect(older.instanceMetadataBatch).toBeUndefined();
    expect(older.instanceMetadata).toBeTypeOf('function');
    expect(new WasmProvider(plugin('1.5', batch)).instancesV2()!.instanceMetadataBatch).toBeTypeOf('function');
  });

  it('has instanceStatusBatch only for plugins of 1.6 or later that export it', () => {
    const exports = ['ccm_instance_status_batch', 'ccm_instance_exists_batch', 'ccm_instance_shutdown_batch'];
    const older = new WasmProvider(plugin('1.5', exports)).instancesV2()!;
    expect(older.instanceStatusBatch).toBeUndefined();
    expect(older.instanceExistsBatch).toBeTypeOf('function');
    expect(new WasmProvider(plugin('1.6', exports)).instancesV2()!.instanceStatusBatch).toBeTypeOf('function');
    expect(new WasmProvider(plugin('1.6', exports.slice(1))).instancesV2()!.instanceStatusBatch).toBeUndefined();
  });
});

// wasm-ccm/testing (packages/wasm-ccm/src/testing): a vendor's unit-test host. It loads a module under the CCM's own
// runtime, answers typed calls, turns error envelopes into PluginAnswerError with the ABI code, answers that break the
// ABI into AbiViolationError, and refuses a module the CCM would refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbiViolationError,
  loadTestPlugin,
  PluginAnswerError,
  testNode,
  testService,
  type TestPlugin,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { brokenPluginPath } from '../conformance/support.ts';

const EXAMPLE_CONFIG = JSON.stringify({
  instances: [{ id: 'i-1', nodeName: 'node-1', zone: 'z-1', region: 'r-1', addresses: [] }],
});

describe('wasm-ccm/testing', () => {
  let example: TestPlugin;
  let broken: TestPlugin;

  beforeAll(async () => {
    example = await loadTestPlugin(builtPlugin('example'), { cloudConfig: EXAMPLE_CONFIG, memoryLimitMB: 32 });
    broken = await loadTestPlugin(await brokenPluginPath(), { cloudConfig: '{"url": "http://127.0.0.1:9"}' });
  }, 60_000);

  afterAll(async () => {
    await example?.close();
    await broken?.close();
  });

  it('answers typed calls with the decoded answer', async () => {
    expect(example.description).toMatchObject({ providerName: 'example', capabilities: ['instancesV2'] });
    const meta = await example.call('instanceMetadata', { node: testNode({ name: 'node-1' }) });
    expect(meta).toMatchObject({ providerID: 'example://i-1', zone: 'z-1', region: 'r-1' });
  });

  it('rejects an error envelope with PluginAnswerError carrying the ABI code, or gives it as a value', async () => {
    const ghost = { node: testNode({ name: 'ghost' }) };
    const err = await example.call('instanceMetadata', ghost).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PluginAnswerError);
    expect(err).toMatchObject({ code: 'InstanceNotFound', method: 'instanceMetadata' });
    const outcome = await example.answer('instanceMetadata', ghost);
    expect(outcome.kind).toBe('error');
    expect(example.violations).toEqual([]);
  });

  it('rejects an answer that breaks the ABI with AbiViolationError, and records it', async () => {
    const request = { clusterName: 'c', service: testService({ name: 'web' }) };
    const err = await broken.call('ensureLoadBalancerDeleted', request).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbiViolationError);
    expect((err as AbiViolationError).code).toBe('ABI_VIOLATION');
    expect((err as Error).message).toContain(
      'ImplementedElsewhere is not an answer ensureLoadBalancerDeleted may give',
    );
    expect(broken.violations).toHaveLength(1);
  });

  it('refuses a module the CCM would refuse: here its initialize fails', async () => {
    const err = await loadTestPlugin(builtPlugin('example'), { cloudConfig: 'not json' }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('ccm_initialize failed: example.initialize: cloud config is not JSON');
  });
});

// SwappableProvider: the switch is atomic for new calls, calls in flight finish on the plugin they started on, and
// the old plugin is closed only after its last call (or its drain deadline).
import { describe, expect, it } from 'vitest';
import { InstanceNotFoundError } from '../../../host/src/cloudprovider/index.ts';
import type { LogFields, Logger } from '../../../host/src/log/logger.ts';
import { SwappableProvider } from '../../../host/src/plugin/swap/swappable-provider.ts';
import { deferred, fakeProvider, node, service } from './fakes.ts';
import { keptList } from '../../../host/src/abi/index.ts';

const BOTH = new Set(['instancesV2', 'loadBalancer'] as const);

function handle(fake: ReturnType<typeof fakeProvider>) {
  return { provider: fake.provider, close: () => fake.close() };
}

function recordingLogger(): Logger & { records: { level: string; msg: string; fields?: LogFields }[] } {
  const records: { level: string; msg: string; fields?: LogFields }[] = [];
  const logger = {
    records,
    debug: (msg: string, fields?: LogFields) => records.push({ level: 'debug', msg, fields }),
    info: (msg: string, fields?: LogFields) => records.push({ level: 'info', msg, fields }),
    warn: (msg: string, fields?: LogFields) => records.push({ level: 'warn', msg, fields }),
    error: (msg: string, fields?: LogFields) => records.push({ level: 'error', msg, fields }),
    v: (n: number) => ({
      enabled: true,
      info: (msg: string, fields?: LogFields) => records.push({ level: `v${n}`, msg, fields }),
      print: (msg: string) => records.push({ level: `v${n}`, msg }),
    }),
    child: () => logger,
  };
  return logger;
}

describe('SwappableProvider', () => {
  it('finishes a call in flight on the old plugin, sends new calls to the new one, then closes the old', async () => {
    const v1 = fakeProvider('v1');
    const v2 = fakeProvider('v2');
    const swappable = new SwappableProvider(handle(v1), { serves: BOTH });
    const instances = swappable.instancesV2();
    const balancer = swappable.loadBalancer();

    const gate = deferred();
    v1.gate = gate.promise;
    const inFlight = instances?.instanceMetadata(node('n1'));
    const inFlightLB = balancer?.ensureLoadBalancer('k', service('s1'), keptList([]));
    await expect.poll(() => swappable.inflight).toBe(2);

    let retired = false;
    const done = swappable.swap(handle(v2)).then(() => (retired = true));
    // New calls, through the very objects captured before the swap, reach v2 at once.
    expect((await instances?.instanceMetadata(node('n2')))?.instanceType).toBe('v2');
    expect((await balancer?.ensureLoadBalancer('k', service('s2'), keptList([])))?.ingress[0]?.ip).toBe('v2');
    expect(v2.served).toEqual(['metadata n2', 'ensure s2']);
    // The swap chose, before it returned, to wait for the two calls (the drain deadline is a minute off); v2 has
    // served two calls since.
    expect(v1.closed).toBe(false);
    expect(retired).toBe(false);

    gate.resolve();
    expect((await inFlight)?.instanceType).toBe('v1');
    expect((await inFlightLB)?.ingress[0]?.ip).toBe('v1');
    await done;
    expect(v1.served).toEqual(['metadata n1', 'ensure s1']);
    expect(v1.closed).toBe(true);
    expect(v2.closed).toBe(false);
    expect(swappable.current).toBe(v2.provider);
  });

  it('closes a plugin with nothing in flight right away', async () => {
    const v1 = fakeProvider('v1');
    const swappable = new SwappableProvider(handle(v1), { serves: BOTH });
    await swappable.swap(handle(fakeProvider('v2')));
    expect(v1.closed).toBe(true);
  });

  it('closes a retired plugin after the drain deadline even if a call never returns, and says so', async () => {
    const v1 = fakeProvider('v1');
    const logger = recordingLogger();
    const swappable = new SwappableProvider(handle(v1), { serves: BOTH, drainTimeoutMs: 50, logger });
    v1.gate = new Promise(() => {});
    void swappable.instancesV2()?.instanceExists(node('stuck'));
    const started = Date.now();
    await swappable.swap(handle(fakeProvider('v2')));
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(v1.closed).toBe(true);
    expect(logger.records).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'closing a retired plugin with calls still running' }),
    );
  });

  it('passes plugin errors through unchanged and still counts the call as finished', async () => {
    const v1 = fakeProvider('v1', {
      metadata: () => {
        throw new InstanceNotFoundError('gone');
      },
    });
    const swappable = new SwappableProvider(handle(v1), { serves: BOTH });
    await expect(swappable.instancesV2()?.instanceMetadata(node('x'))).rejects.toBeInstanceOf(InstanceNotFoundError);
    expect(swappable.inflight).toBe(0);
    await swappable.swap(handle(fakeProvider('v2')));
    expect(v1.closed).toBe(true);
  });

  it('offers exactly the served capabilities, whatever the plugin declares', () => {
    const swappable = new SwappableProvider(handle(fakeProvider('v1')), { serves: new Set(['instancesV2']) });
    expect(swappable.instancesV2()).toBeDefined();
    expect(swappable.loadBalancer()).toBeUndefined();
    expect(swappable.routes()).toBeUndefined();
    expect(swappable.providerName()).toBe('fake');
    expect(swappable.hasClusterID()).toBe(true);
  });

  it('close() drains the current plugin and every one still retiring, once', async () => {
    const v1 = fakeProvider('v1');
    const v2 = fakeProvider('v2');
    let closes = 0;
    const swappable = new SwappableProvider(handle(v1), { serves: BOTH });
    const gate = deferred();
    v1.gate = gate.promise;
    const call = swappable.instancesV2()?.instanceExists(node('a'));
    void swappable.swap({ provider: v2.provider, close: async () => void closes++ });
    const closing = swappable.close();
    expect(swappable.close()).toBe(closing);
    gate.resolve();
    await call;
    await closing;
    expect(v1.closed).toBe(true);
    expect(closes).toBe(1);
    expect(() => swappable.swap(handle(fakeProvider('v3')))).toThrow('closed');
  });
});

// Hot swap through the API: a running wasm-ccm (real process, operator RBAC) serves LoadBalancer Services with the
// devcloud plugin from a ConfigMap; replacing the module in the ConfigMap switches the CCM to the new version without
// a restart or a failed reconcile, and every bad candidate (bad or missing signature, trapping ccm_initialize, ABI
// major 2, a raw hostile module whose table would abort the process) is refused with a Warning event on the ConfigMap
// while the running version keeps serving.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  debugPlugins,
  eventsAbout,
  httpsGet,
  type Kube,
  lbService,
  PLUGIN_NAMESPACE,
  prepareKube,
  putPluginConfigMap,
  type ServingCCM,
  servingVersion,
  startConfigMapSwapTest,
  waitForIngress,
  failedSyncs as failedSyncsIn,
  tearDownSwapTest,
} from '../../../lab/ccm/index.ts';
import {
  type HotswapModules,
  hotswapModules,
  type SigningKey,
  signingKey,
  hostileModule,
} from '../../../lab/plugins/index.ts';

const KEY = 'devcloud.wasm';
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('hot swap through a plugin ConfigMap (API source, signed modules)', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('hotswap-cm');
  const configMap = uniqueName('dc-plugin');
  const nodeName = uniqueName('hotswap-node');
  const names = { namespace, nodeName, configMap };
  let kube: Kube;
  let cloud: Devcloud;
  let modules: HotswapModules;
  let vendor: SigningKey;
  let env: ServingCCM;

  beforeAll(async () => {
    [kube, cloud, modules] = await Promise.all([prepareKube(info), startDevcloud(), hotswapModules()]);
    vendor = signingKey();
    env = await startConfigMapSwapTest(info, kube, cloud, names, {
      key: KEY,
      module: modules.v1,
      signature: vendor.sign(modules.v1),
      publicKeyPem: vendor.publicKeyPem,
    });
  });

  afterAll(async () => {
    const code = await tearDownSwapTest({ kube, env, cloud, ...names });
    expect(code).toBe(0);
  });

  const failedSyncs = (): Promise<number> => failedSyncsIn(kube.core, namespace);

  it('serves v1 from the ConfigMap and shows it on /debug/plugins', async () => {
    await kube.core.createNamespacedService({ namespace, body: lbService('before') });
    await waitForIngress(kube.core, namespace, 'before');
    const [status, ...more] = await debugPlugins(env.base);
    expect(more).toEqual([]);
    expect(status).toMatchObject({
      name: 'devcloud',
      providerName: 'devcloud',
      version: '1.0.0',
      sha256: sha256(modules.v1),
      default: true,
      source: `configmap ${PLUGIN_NAMESPACE}/${configMap}[${KEY}]`,
      swaps: { applied: 0, rejected: 0 },
      lastRejected: null,
    });
    expect(status?.calls).toBeGreaterThan(0);
  });

  it('switches to v2 when the ConfigMap changes: same process, no failed reconcile, new Services served', async () => {
    const pid = env.ccm.process.pid;
    const updatedAt = Date.now();
    await putPluginConfigMap(kube.core, configMap, KEY, modules.v2, vendor.sign(modules.v2));
    await servingVersion(env.base, 'devcloud', '2.0.0', 10_000);
    const tookMs = Date.now() - updatedAt;
    expect(tookMs).toBeLessThan(5_000);

    const swapped = await env.ccm.waitForLog('the swap log line', (r) => r.msg === 'plugin swapped');
    expect(swapped).toMatchObject({ provider: 'devcloud', from: '1.0.0', to: '2.0.0', sha256: sha256(modules.v2) });
    const [event] = await eventually('PluginSwapped event', async () => {
      const e = await eventsAbout(kube.core, PLUGIN_NAMESPACE, 'ConfigMap', configMap, 'PluginSwapped');
      return e.length > 0 ? e : undefined;
    });
    expect(event).toMatchObject({ type: 'Normal', source: { component: 'wasm-ccm' } });
    expect(event?.message).toContain('now runs devcloud 2.0.0');

    // Reconciles keep working across the swap: a new Service, and a change to the old one.
    await kube.core.createNamespacedService({ namespace, body: lbService('after') });
    await waitForIngress(kube.core, namespace, 'after');
    await kube.core.patchNamespacedService({
      namespace,
      name: 'before',
      body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
    });
    await eventually('before re-ensured', async () => {
      const e = await eventsAbout(kube.core, namespace, 'Service', 'before', 'EnsuredLoadBalancer');
      return (e[0]?.count ?? 0) >= 2 ? true : undefined;
    });
    expect(await failedSyncs()).toBe(0);
    expect(env.ccm.process.running).toBe(true);
    expect(env.ccm.process.pid).toBe(pid);
    // The plugin's own log: the v2 module initialized its instances (with the cloud config of the provider).
    expect(env.ccm.logs().some((r) => r.msg === 'devcloud provider initialized' && r.version === '2.0.0')).toBe(true);
  });

  it.each<[string, (m: HotswapModules) => [Uint8Array, string | undefined], RegExp]>([
    [
      'a module signed by another key',
      (m) => [m.v1, signingKey().sign(m.v1)],
      /^signature: Ed25519 signature does not match/,
    ],
    ['an unsigned module', (m) => [m.v1, undefined], /^unsigned: a signature is required .*key "devcloud\.wasm\.sig"/],
    [
      'a module whose ccm_initialize traps',
      (m) => [m.trapInit, vendor.sign(m.trapInit)],
      /ccm_initialize failed: .*(unreachable|trap)/i,
    ],
    [
      'a module of ABI major 2',
      (m) => [m.abiV2, vendor.sign(m.abiV2)],
      /speaks provider ABI 2\.0; this host speaks ABI 1\.x only/,
    ],
    [
      'a signed raw module declaring a 10M-entry table (V8 would abort the process)',
      () => {
        const bytes = hostileModule({ body: '(table 10000000 funcref)' });
        return [bytes, vendor.sign(bytes)];
      },
      /the module's tables need 10000000 entries at start, above the cap of 10000 table entries/,
    ],
  ])('refuses %s with a Warning event while v2 keeps serving', async (_what, pick, reason) => {
    const [bytes, signature] = pick(modules);
    await putPluginConfigMap(kube.core, configMap, KEY, bytes, signature);
    const status = await eventually('the candidate refused', async () => {
      const s = (await debugPlugins(env.base))[0];
      return s?.lastRejected?.sha256 === sha256(bytes) && reason.test(s.lastRejected.reason) ? s : undefined;
    });
    expect(status.version).toBe('2.0.0');
    expect(status.sha256).toBe(sha256(modules.v2));
    expect(Date.parse(status.lastRejected?.time ?? '')).toBeGreaterThan(Date.now() - 30_000);

    const event = await eventually('PluginRejected event', async () => {
      const events = await eventsAbout(kube.core, PLUGIN_NAMESPACE, 'ConfigMap', configMap, 'PluginRejected');
      // v1 is refused twice, for two reasons: the event must be this refusal's.
      return events.find(
        (e) =>
          e.message?.includes(sha256(bytes).slice(0, 12)) &&
          reason.test(e.message.split('for provider devcloud: ')[1] ?? ''),
      );
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('still serving 2.0.0');
    await env.ccm.waitForLog(
      'the rejection log line',
      (r) => r.msg === 'plugin candidate rejected' && r.sha256 === sha256(bytes) && reason.test(String(r.reason)),
    );

    // Still serving: a Service created now gets its load balancer from v2.
    const name = uniqueName('still').slice(0, 40);
    await kube.core.createNamespacedService({ namespace, body: lbService(name) });
    await waitForIngress(kube.core, namespace, name);
    expect(await failedSyncs()).toBe(0);
  });

  it('counts what happened in its metrics and goes back to v1 on request', async () => {
    await putPluginConfigMap(kube.core, configMap, KEY, modules.v1, vendor.sign(modules.v1));
    await servingVersion(env.base, 'devcloud', '1.0.0', 10_000);
    const status = (await debugPlugins(env.base))[0];
    expect(status?.swaps).toEqual({ applied: 2, rejected: 5 });
    const metrics = (await httpsGet(`${env.base}/metrics`)).body;
    expect(metrics).toMatch(/^wasm_ccm_plugin_swaps_total\{provider="devcloud",result="applied"\} 2$/m);
    expect(metrics).toMatch(/^wasm_ccm_plugin_swaps_total\{provider="devcloud",result="rejected"\} 5$/m);
    expect(metrics).toMatch(/^wasm_ccm_plugin_swap_duration_seconds_count\{provider="devcloud",result="applied"\} 2$/m);
  });
});

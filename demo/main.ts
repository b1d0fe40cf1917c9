// `npm run demo`: wasm-ccm on embedded defaults. Starts a local control plane (etcd + kube-apiserver), the devcloud
// simulated cloud, kwok fake kubelets and wasm-ccm with the devcloud plugin shipped in a ConfigMap; initializes the
// nodes, gives a LoadBalancer Service its external IP, hot-swaps the plugin from v1 to v2 and shows v2 serving.
// Runs until Ctrl-C (or, with --once, stops after the swap), then removes everything it started.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { type Devcloud, startDevcloud } from '../devcloud/src/index.ts';
import { buildDevcloudVariant } from '../plugins/devcloud/build-variant.ts';
import {
  CCMProcess,
  devcloudProvider,
  PLUGIN_NAMESPACE,
  putPluginConfigMap,
  writePluginConfig,
} from '../lab/ccm/index.ts';
import {
  ControlPlane,
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  startKwok,
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../lab/controlplane/index.ts';
import { freePort, type ManagedProcess, eventually, httpsGetInsecure } from '../lab/process/index.ts';
import { builtPlugin } from '../lab/plugins/index.ts';

const ROOT = join(import.meta.dirname, '..');
const NODES = ['demo-node-1', 'demo-node-2', 'demo-node-3'];
const PLUGIN_CONFIGMAP = 'wasm-ccm-plugins';
const KEY = 'devcloud.wasm';
const started = Date.now();

function say(message: string): void {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  process.stdout.write(`[${t}s] ${message}\n`);
}

interface Running {
  controlPlane?: ControlPlane;
  cloud?: Devcloud;
  kwok?: ManagedProcess;
  ccm?: CCMProcess;
  dir?: string;
}

async function cleanUp(r: Running): Promise<void> {
  say('cleaning up: wasm-ccm, kwok, devcloud, control plane');
  await r.ccm?.stop().catch(() => undefined);
  await r.kwok?.stop().catch(() => undefined);
  await r.cloud?.stop().catch(() => undefined);
  await r.controlPlane?.stop().catch(() => undefined);
  if (r.dir) rmSync(r.dir, { recursive: true, force: true });
  say('done: everything the demo started is stopped and removed');
}

async function pluginVersion(base: string): Promise<string | undefined> {
  const res = await httpsGetInsecure(`${base}/debug/plugins`);
  if (res.status !== 200) return undefined;
  const plugins = JSON.parse(res.body) as { name: string; version: string }[];
  return plugins.find((p) => p.name === 'devcloud')?.version;
}

async function run(r: Running, once: boolean, stop: Promise<void>): Promise<void> {
  say('starting a local control plane (etcd + kube-apiserver v1.36, TLS, RBAC)');
  r.controlPlane = await ControlPlane.start();
  const info = r.controlPlane.info;
  say(`control plane ready at ${info.server}; admin kubeconfig: ${info.kubeconfigPath}`);
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  r.dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-demo-'));

  r.cloud = await startDevcloud();
  const instances = NODES.map((name, i) =>
    r.cloud!.addInstance({ name, type: i === 0 ? 'dc.large' : 'dc.small', zone: `dc-east-1${'abc'[i]}` }),
  );
  say(`devcloud (simulated IaaS) at ${r.cloud.url} with instances ${instances.map((i) => i.id).join(', ')}`);

  r.kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: r.dir });
  for (const name of NODES) {
    // As a kubelet started with --cloud-provider=external registers: tainted until the CCM initializes it.
    await core.createNode({
      body: {
        metadata: { name, annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } },
        spec: {
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
        },
      },
    });
  }
  say(`kwok registered ${NODES.length} nodes, tainted node.cloudprovider.kubernetes.io/uninitialized`);

  await applyManifests(admin, loadManifests('rbac.yaml'));
  const { token } = await ccmIdentity(info, admin);
  await putPluginConfigMap(core, PLUGIN_CONFIGMAP, KEY, new Uint8Array(readFileSync(builtPlugin('devcloud'))));
  const config = writePluginConfig(r.dir, 'demo', {
    providers: [
      devcloudProvider(r.dir, r.cloud, 'devcloud', {
        configMap: { namespace: PLUGIN_NAMESPACE, name: PLUGIN_CONFIGMAP, key: KEY },
      }),
    ],
  });
  const port = await freePort();
  const base = `https://127.0.0.1:${port}`;
  r.ccm = new CCMProcess({
    info,
    token,
    dir: r.dir,
    args: [
      '--cloud-provider=devcloud',
      `--plugin-config=${config}`,
      '--cluster-cidr=10.244.0.0/16',
      '--configure-cloud-routes=false',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--delegated-auth=false',
    ],
  });
  say(
    `wasm-ccm starting as ServiceAccount kube-system/cloud-controller-manager (RBAC from manifests/), logs: ${r.ccm.process.logPath}`,
  );
  await r.ccm.ready(60_000);
  say(
    `wasm-ccm is leading and serving devcloud ${await pluginVersion(base)} from ConfigMap ${PLUGIN_NAMESPACE}/${PLUGIN_CONFIGMAP}`,
  );

  for (const name of NODES) {
    const node = await eventually(
      `${name} initialized`,
      async () => {
        const n = await core.readNode({ name });
        return n.spec?.providerID && !n.spec.taints?.some((t) => t.key.endsWith('/uninitialized')) ? n : undefined;
      },
      60_000,
    );
    const labels = node.metadata?.labels ?? {};
    say(
      `node ${name}: ${node.spec?.providerID}, ${labels['node.kubernetes.io/instance-type']}, zone ${labels['topology.kubernetes.io/zone']}, taint removed`,
    );
  }

  await core.createNamespace({ body: { metadata: { name: 'demo' } } });
  await core.createNamespacedService({
    namespace: 'demo',
    body: {
      metadata: { name: 'web' },
      spec: {
        type: 'LoadBalancer',
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, targetPort: 8080 as never }],
      },
    },
  });
  say('created LoadBalancer Service demo/web');
  const svc = await eventually(
    'an external IP',
    async () => {
      const s = await core.readNamespacedService({ name: 'web', namespace: 'demo' });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    },
    60_000,
  );
  const ip = svc.status?.loadBalancer?.ingress?.[0]?.ip;
  const lb = r.cloud.inventory().loadBalancers.find((l) => l.vip === ip);
  say(`demo/web EXTERNAL-IP ${ip} (devcloud load balancer ${lb?.name}, ${lb?.backends.length ?? 0} backends)`);

  say('building devcloud plugin v2 and updating the plugin ConfigMap (hot swap, no restart)');
  // Cached: a second demo run reuses the v2 module while no plugin source changed.
  const { wasm: v2 } = await buildDevcloudVariant(2, {
    cacheDir: join(ROOT, 'plugins', 'devcloud', 'build', 'variant-cache'),
  });
  const swapStarted = Date.now();
  await putPluginConfigMap(core, PLUGIN_CONFIGMAP, KEY, v2);
  await eventually('v2 serving', async () => ((await pluginVersion(base)) === '2.0.0' ? true : undefined), 60_000);
  say(`hot-swapped: wasm-ccm now serves devcloud 2.0.0 (${Date.now() - swapStarted} ms after the ConfigMap update)`);

  const patched = await core.readNamespacedService({ name: 'web', namespace: 'demo' });
  patched.metadata!.annotations = { 'service.beta.kubernetes.io/devcloud-description': 'served by v2' };
  await core.replaceNamespacedService({ name: 'web', namespace: 'demo', body: patched });
  await eventually('v2 re-ensured the LB', () =>
    r.cloud!.inventory().loadBalancers.some((l) => l.vip === ip && l.description === 'served by v2') ? true : undefined,
  );
  say(`v2 re-ensured demo/web after an annotation change; EXTERNAL-IP still ${ip}`);

  if (once) return;
  say(`running. Try: KUBECONFIG=${info.kubeconfigPath} kubectl get nodes,svc -A   (Ctrl-C to stop)`);
  await stop;
}

async function main(): Promise<number> {
  const once = process.argv.includes('--once');
  const running: Running = {};
  let interrupt: () => void = () => {};
  const stop = new Promise<void>((resolve) => (interrupt = resolve));
  process.on('SIGINT', () => interrupt());
  process.on('SIGTERM', () => interrupt());
  try {
    await Promise.race([run(running, once, stop), stop]);
    return 0;
  } catch (err) {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await cleanUp(running);
  }
}

main().then((code) => process.exit(code));

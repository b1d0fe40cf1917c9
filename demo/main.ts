// `npm run demo`: `wasm-ccm dev` with devcloud. Starts the devcloud simulated cloud with three instances, then the
// session `wasm-ccm dev --watch` runs (packages/wasm-ccm/src/dev): a local control plane, kwok Nodes for the
// instances, wasm-ccm serving the devcloud plugin from a ConfigMap. Gives a LoadBalancer Service its external IP,
// writes devcloud plugin v2 over the watched module file (the hot swap), and shows v2 serving. Runs until Ctrl-C
// (or, with --once, stops after the swap), then removes everything it started.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { type Devcloud, startDevcloud } from '../devcloud/src/index.ts';
import { buildDevcloudVariant } from '../plugins/devcloud/build-variant.ts';
import { adminKubeConfig } from '../lab/controlplane/index.ts';
import { eventually } from '../lab/process/index.ts';
import { builtPlugin } from '../lab/plugins/index.ts';
import { type DevSession, startDev, tryLines } from '../packages/wasm-ccm/src/dev/index.ts';

const ROOT = join(import.meta.dirname, '..');
const NODES = ['demo-node-1', 'demo-node-2', 'demo-node-3'];
const started = Date.now();
/** Lines `wasm-ccm dev` said, for waiting on what it reports (the swap). */
const said: string[] = [];

function say(message: string): void {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  said.push(message);
  process.stdout.write(`[${t}s] ${message}\n`);
}

interface Running {
  cloud?: Devcloud;
  stopDev?: () => Promise<void>;
  dir?: string;
}

async function cleanUp(r: Running): Promise<void> {
  say('cleaning up: wasm-ccm dev (wasm-ccm, kwok, control plane), devcloud');
  await r.stopDev?.().catch(() => undefined);
  await r.cloud?.stop().catch(() => undefined);
  if (r.dir) rmSync(r.dir, { recursive: true, force: true });
  say('done: everything the demo started is stopped and removed');
}

/** The files `wasm-ccm dev` takes, for devcloud: the fixture naming the nodes, cloud config, credentials, module. */
function devFiles(dir: string, cloud: Devcloud): { fixture: string; cloudConfig: string; credentials: string } {
  const host = `127.0.0.1:${cloud.port}`;
  const files = {
    fixture: join(dir, 'fixture.json'),
    cloudConfig: join(dir, 'cloud.json'),
    credentials: join(dir, 'credentials.json'),
  };
  const running = NODES.map((name) => ({ name }));
  writeFileSync(files.fixture, JSON.stringify({ clusterName: 'demo', nodes: { running, stopped: [], missing: [] } }));
  writeFileSync(files.cloudConfig, JSON.stringify({ url: cloud.url, region: 'dc-east-1' }));
  const credential = { name: 'devcloud', hosts: [host], bearerToken: cloud.token, insecure: true };
  writeFileSync(files.credentials, JSON.stringify({ credentials: [credential] }), { mode: 0o600 });
  copyFileSync(builtPlugin('devcloud'), join(dir, 'devcloud.wasm'));
  return files;
}

async function showLoadBalancer(session: DevSession, cloud: Devcloud): Promise<string | undefined> {
  const core = adminKubeConfig(session.cluster.controlPlane!.info).makeApiClient(CoreV1Api);
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
  const lb = cloud.inventory().loadBalancers.find((l) => l.vip === ip);
  say(`demo/web EXTERNAL-IP ${ip} (devcloud load balancer ${lb?.name}, ${lb?.backends.length ?? 0} backends)`);
  return ip;
}

async function hotSwap(session: DevSession, cloud: Devcloud, module: string, ip: string | undefined): Promise<void> {
  say('building devcloud plugin v2 and writing it over the watched module (hot swap, no restart)');
  // Cached: a second demo run reuses the v2 module while no plugin source changed.
  const { wasm: v2 } = await buildDevcloudVariant(2, {
    cacheDir: join(ROOT, 'plugins', 'devcloud', 'build', 'variant-cache'),
  });
  writeFileSync(module, v2);
  await eventually('v2 swapped in', () => said.some((l) => l.startsWith('wasm-ccm swapped it in: ')), 90_000);
  const core = adminKubeConfig(session.cluster.controlPlane!.info).makeApiClient(CoreV1Api);
  const patched = await core.readNamespacedService({ name: 'web', namespace: 'demo' });
  patched.metadata!.annotations = { 'service.beta.kubernetes.io/devcloud-description': 'served by v2' };
  await core.replaceNamespacedService({ name: 'web', namespace: 'demo', body: patched });
  await eventually('v2 re-ensured the LB', () =>
    cloud.inventory().loadBalancers.some((l) => l.vip === ip && l.description === 'served by v2') ? true : undefined,
  );
  say(`v2 re-ensured demo/web after an annotation change; EXTERNAL-IP still ${ip}`);
}

async function run(r: Running, once: boolean, stop: Promise<void>): Promise<void> {
  r.dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-demo-'));
  r.cloud = await startDevcloud();
  const instances = NODES.map((name, i) =>
    r.cloud!.addInstance({ name, type: i === 0 ? 'dc.large' : 'dc.small', zone: `dc-east-1${'abc'[i]}` }),
  );
  say(`devcloud (simulated IaaS) at ${r.cloud.url} with instances ${instances.map((i) => i.id).join(', ')}`);
  const files = devFiles(r.dir, r.cloud);
  const module = join(r.dir, 'devcloud.wasm');
  say(`wasm-ccm dev --plugin=${module} --watch (the session a provider project's npm run dev starts)`);
  const session = await startDev(
    { plugin: module, ...files, allowedHosts: [`127.0.0.1:${r.cloud.port}`], watch: true },
    say,
    (stopDev) => (r.stopDev = stopDev),
  );
  const ip = await showLoadBalancer(session, r.cloud);
  await hotSwap(session, r.cloud, module, ip);
  if (once) return;
  for (const line of tryLines(session.cluster)) say(line);
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

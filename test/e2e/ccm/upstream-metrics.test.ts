// wasm-ccm's /metrics, /metrics/slis, /healthz and /configz against upstream's, both CCMs running side by side on
// one cluster with the same flags (each its own lease): every metric both expose has the same type, label names and
// histogram buckets (`le` text included), unless DIFFERENCES says why not; /healthz has the same checks; /configz the
// same fields.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { type CCMProcess, startDevcloudCCM } from '../../../lab/ccm/index.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually, freePort, httpsGetInsecure } from '../../../lab/process/index.ts';
import { PeerCCM } from '../../../lab/peers/index.ts';

const FLAGS = [
  '--controllers=*',
  '--cluster-name=kubernetes',
  '--cluster-cidr=10.244.0.0/16',
  '--configure-cloud-routes=true',
  '--allocate-node-cidrs=true',
  '--bind-address=127.0.0.1',
];

/** Metrics both expose that differ on purpose, and why. */
const DIFFERENCES: Record<string, string> = {
  process_cpu_seconds_total: "prom-client's process collector: same name and type, its own help text",
  process_max_fds: "prom-client's process collector",
  process_open_fds: "prom-client's process collector",
  process_resident_memory_bytes: "prom-client's process collector",
  process_start_time_seconds: "prom-client's process collector",
  process_virtual_memory_bytes: "prom-client's process collector",
};

interface Family {
  type: string;
  help: string;
  labels: string[];
  buckets: string[];
}

/** The Prometheus text format's families: type, help, label names (without `le`) and bucket bounds as written. */
function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = out.get(name);
    if (!f) out.set(name, (f = { type: '', help: '', labels: [], buckets: [] }));
    return f;
  };
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const f = family(meta[2] as string);
      if (meta[1] === 'TYPE') f.type = meta[3] as string;
      else f.help = meta[3] as string;
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    const name = (sample[1] as string).replace(/_(bucket|sum|count)$/, '');
    const f = out.has(name) ? family(name) : family(sample[1] as string);
    for (const [, label, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (label === 'le') {
        if (!f.buckets.includes(value as string)) f.buckets.push(value as string);
      } else if (!f.labels.includes(label as string)) f.labels.push(label as string);
    }
  }
  for (const f of out.values()) f.labels.sort();
  return out;
}

/** A histogram's `_count` sample in Prometheus text (0 when absent). */
function histogramCount(text: string, name: string): number {
  return Number(new RegExp(`^${name}_count(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** The key paths of a JSON document (values aside). */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keyPaths(v, `${prefix}/${k}`));
}

describe("wasm-ccm's serving endpoints against upstream's", () => {
  const info = inject('controlPlane');
  let cloud: Devcloud;
  let peer: PeerCCM;
  let ccm: CCMProcess;
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  // There before either CCM starts: the informers' initial lists hold a Node.
  const nodeName = uniqueName('metrics-node');
  const base = { upstream: '', wasm: '' };
  const get = async (which: keyof typeof base, path: string): Promise<string> => {
    const res = await httpsGetInsecure(`${base[which]}${path}`, { token: info.adminToken });
    expect(res.status, `${which} ${path}`).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    cloud = await startDevcloud();
    const instance = cloud.addInstance({ name: nodeName });
    await core.createNode({
      body: { metadata: { name: nodeName }, spec: { providerID: `devcloud://${instance.id}` } },
    });
    const [upstreamPort, wasmPort] = [await freePort(), await freePort()];
    base.upstream = `https://127.0.0.1:${upstreamPort}`;
    base.wasm = `https://127.0.0.1:${wasmPort}`;
    peer = new PeerCCM({
      info,
      cloud,
      args: [...FLAGS, `--secure-port=${upstreamPort}`, '--leader-elect-resource-name=upstream-metrics'],
    });
    ccm = startDevcloudCCM(info, info.adminToken, cloud, 'metrics', [
      ...FLAGS,
      `--secure-port=${wasmPort}`,
      '--leader-elect-resource-name=wasm-metrics',
    ]);
    await ccm.ready(120_000);
    // Both lead and run every controller: each /healthz lists them.
    for (const which of ['upstream', 'wasm'] as const) {
      await eventually(`${which} controllers started`, async () =>
        (await get(which, '/healthz?verbose')).includes('node-route-controller') ? true : undefined,
      );
    }
  });

  afterAll(async () => {
    await ccm?.stop();
    await peer?.stop();
    await cloud?.stop();
    await core.deleteNode({ name: nodeName }).catch(() => undefined);
  });

  it('exposes the metrics both have with the same type, label names and buckets', async () => {
    const upstream = families(await get('upstream', '/metrics'));
    const wasm = families(await get('wasm', '/metrics'));
    const common = [...upstream.keys()].filter((name) => wasm.has(name));
    // The controllers' and work queues' metrics at least (upstream serves no rest_client_* or leader election ones).
    expect(common).toEqual(
      expect.arrayContaining([
        'node_controller_cloud_provider_taint_removal_delay_seconds',
        'service_controller_nodesync_latency_seconds',
        'service_controller_update_loadbalancer_host_latency_seconds',
        'workqueue_work_duration_seconds',
        'running_managed_controllers',
      ]),
    );
    for (const name of common.filter((n) => DIFFERENCES[n] === undefined)) {
      const [u, w] = [upstream.get(name), wasm.get(name)];
      expect({ type: w?.type, help: w?.help, labels: w?.labels }, name).toEqual({
        type: u?.type,
        help: u?.help,
        labels: u?.labels,
      });
      if (u?.type === 'histogram' && u.buckets.length > 0 && (w?.buckets.length ?? 0) > 0) {
        expect(w?.buckets, `${name} buckets`).toEqual(u.buckets);
      }
    }
    for (const name of Object.keys(DIFFERENCES)) {
      expect(upstream.get(name)?.type, name).toBe(wasm.get(name)?.type);
    }
  });

  it("runs one node sync at start-up from the Node informer's initial list, as upstream", async () => {
    const count = async (which: keyof typeof base): Promise<number> =>
      histogramCount(await get(which, '/metrics'), 'service_controller_nodesync_latency_seconds');
    await eventually('upstream ran its start-up node sync', async () =>
      (await count('upstream')) > 0 ? true : undefined,
    );
    await eventually('wasm-ccm ran its start-up node sync', async () => ((await count('wasm')) > 0 ? true : undefined));
    expect(await count('wasm')).toBe(await count('upstream'));
  });

  it('serves /metrics/slis with the same metrics, and /healthz with the same checks', async () => {
    const upstreamChecks = (await get('upstream', '/healthz?verbose')).trim().split('\n').sort();
    const wasmChecks = (await get('wasm', '/healthz?verbose')).trim().split('\n').sort();
    expect(wasmChecks).toEqual(upstreamChecks);
    const upstream = families(await get('upstream', '/metrics/slis'));
    const wasm = families(await get('wasm', '/metrics/slis'));
    for (const name of ['kubernetes_healthcheck', 'kubernetes_healthchecks_total']) {
      expect(wasm.get(name), name).toEqual(upstream.get(name));
    }
    expect((await get('wasm', '/metrics/slis')).match(/^kubernetes_healthcheck\{.*$/gm)?.sort()).toEqual(
      (await get('upstream', '/metrics/slis')).match(/^kubernetes_healthcheck\{.*$/gm)?.sort(),
    );
  });

  it('serves /configz with the same fields, and the same values but for file paths', async () => {
    const upstream = JSON.parse(await get('upstream', '/configz')) as Record<string, unknown>;
    const wasm = JSON.parse(await get('wasm', '/configz')) as Record<string, unknown>;
    expect(keyPaths(wasm).sort()).toEqual(keyPaths(upstream).sort());
    const group = (doc: Record<string, unknown>) =>
      doc['cloudcontrollermanager.config.k8s.io'] as { KubeCloudShared: unknown; Generic: { LeaderElection: unknown } };
    expect(group(wasm).KubeCloudShared).toMatchObject({ ClusterCIDR: '10.244.0.0/16', NodeMonitorPeriod: '5s' });
    expect(group(wasm).Generic.LeaderElection).toEqual({
      ...(group(upstream).Generic.LeaderElection as object),
      resourceName: 'wasm-metrics',
    });
  });

  it('refuses /configz and /metrics/slis without a token', async () => {
    for (const path of ['/configz', '/metrics/slis']) {
      expect((await httpsGetInsecure(`${base.wasm}${path}`)).status, path).toBe(401);
    }
  });
});

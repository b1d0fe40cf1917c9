// What each -v adds, on the real control plane: the same short run (a tainted Node initialized, a LoadBalancer
// Service ensured) at -v=0, 2 and 4, each level's own lines present from it on and absent below, and more lines at
// each level. Then -v changed while the CCM runs, through /debug/flags/v.
import { request } from 'node:https';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type DevcloudCCM, type LogRecord, DevcloudCCM as Env } from '../../../lab/ccm/index.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually, freePort } from '../../../lab/process/index.ts';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };
// Each run's load balancer takes only its own Node: Nodes of other runs (and files) are instances of other clouds.
const SELECTOR = 'service.beta.kubernetes.io/devcloud-backend-label-selector';
const RUN_LABEL = 'wasm-ccm.test/log-run';

interface Run {
  records: LogRecord[];
  /** Log lines written by the time the scenario's last Event was logged. */
  lines: number;
}

function putInsecure(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', rejectUnauthorized: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const messages = (run: Run): string[] => run.records.map((r) => r.msg ?? '');
const eventLogged = (reason: string, object: string) => (r: LogRecord) =>
  r.msg === 'Event occurred' && r.reason === reason && r.object === object;

describe('log levels (wasm-ccm process, devcloud plugin)', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const envs: DevcloudCCM[] = [];
  const services: string[] = [];
  const runs = new Map<number, Run>();

  afterAll(async () => {
    await Promise.allSettled(services.map((name) => core.deleteNamespacedService({ namespace: 'default', name })));
    await Promise.allSettled(envs.map((env) => env.stop()));
  });

  async function start(v: number, extra: string[] = []): Promise<DevcloudCCM> {
    const env = await Env.start({
      info,
      tag: uniqueName(`v${v}`),
      args: ['--controllers=cloud-node,service', '--leader-elect=false', `--v=${v}`, ...extra],
    });
    envs.push(env);
    return env;
  }

  async function createService(name: string, run: string): Promise<void> {
    services.push(name);
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name, annotations: { [SELECTOR]: `${RUN_LABEL}=${run}` } },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
      },
    });
  }

  /** Deletes the run's Service while its CCM runs (which removes the finalizer) and its Node, then stops the CCM. */
  async function finish(env: DevcloudCCM, service: string): Promise<void> {
    await core.deleteNamespacedService({ namespace: 'default', name: service });
    await eventually('the Service gone', async () => {
      try {
        await core.readNamespacedService({ namespace: 'default', name: service });
        return false;
      } catch {
        return true;
      }
    });
    await env.deleteNodes();
    await env.stopCCM();
  }

  /** A tainted Node initialized and a LoadBalancer Service ensured; resolves once both Events are logged. */
  async function scenario(env: DevcloudCCM, v: number): Promise<{ node: string; service: string; run: string }> {
    const run = uniqueName(`lv${v}`);
    const node = run;
    const service = run;
    await env.seedNode(node, { taints: [TAINT], labels: { [RUN_LABEL]: run } });
    await createService(service, run);
    const ccm = env.ccm!;
    await ccm.waitForLog('the Synced event', eventLogged('Synced', node));
    await ccm.waitForLog('the EnsuredLoadBalancer event', eventLogged('EnsuredLoadBalancer', `default/${service}`));
    await eventually('the ingress', async () => {
      const svc = await core.readNamespacedService({ namespace: 'default', name: service });
      return (svc.status?.loadBalancer?.ingress?.length ?? 0) > 0;
    });
    return { node, service, run };
  }

  async function runAt(v: number): Promise<Run> {
    const env = await start(v);
    const { service } = await scenario(env, v);
    const ccm = env.ccm!;
    // The status patch is the sync's last step: its record (and at -v=4 the sync's timing) comes after the Event.
    if (v >= 4)
      await ccm.waitForLog(
        'the sync timing',
        (r) => r.msg === 'Finished syncing service' && r.service === `default/${service}`,
      );
    const records = ccm.logs();
    await finish(env, service);
    return { records, lines: records.length };
  }

  it('-v=0: Version and every Event, as upstream prints them at 0; no record of a higher verbosity', async () => {
    const run = await runAt(0);
    runs.set(0, run);
    expect(messages(run).filter((m) => /^Version: v\d+\.\d+\.\d+/.test(m))).toHaveLength(1);
    const event = run.records.find((r) => r.msg === 'Event occurred' && r.reason === 'EnsuringLoadBalancer');
    expect(event).toMatchObject({ v: 0, fieldPath: '', kind: 'Service', apiVersion: 'v1', type: 'Normal' });
    expect(run.records.filter((r) => (r.v ?? 0) > 0)).toEqual([]);
  });

  it("-v=2: the flag dump, and the controllers' decisions as upstream words them; nothing above 2", async () => {
    const run = await runAt(2);
    runs.set(2, run);
    const flags = messages(run).filter((m) => m.startsWith('FLAG: --'));
    expect(flags).toHaveLength(Object.keys(CCM_FLAGS).length + 2);
    expect(flags).toContain('FLAG: --v="2"');
    expect(flags).toContain('FLAG: --controllers="[cloud-node,service]"');
    for (const decision of [
      'Ensuring load balancer for service',
      'Adding finalizer to service',
      'Patching status for service',
      'Adding node label from cloud provider',
    ]) {
      expect(messages(run), decision).toContain(decision);
    }
    expect(run.records.filter((r) => (r.v ?? 0) > 2)).toEqual([]);
    expect(run.lines).toBeGreaterThan(runs.get(0)!.lines);
  });

  it('-v=4: each plugin call and brokered request, and the sync timings', async () => {
    const run = await runAt(4);
    const calls = run.records.filter((r) => r.msg === 'plugin call');
    expect(calls).toContainEqual(
      expect.objectContaining({ v: 4, plugin: 'devcloud', method: 'ensureLoadBalancer', outcome: 'ok' }),
    );
    const requests = run.records.filter((r) => r.msg === 'plugin HTTP request');
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) {
      expect(r).toMatchObject({ v: 4, host: expect.stringMatching(/^127\.0\.0\.1:\d+$/), status: expect.any(Number) });
      expect(String(r.path)).not.toContain('?');
    }
    expect(messages(run)).toContain('Listing and watching');
    expect(messages(run)).toContain('Finished syncing service');
    expect(run.lines).toBeGreaterThan(runs.get(2)!.lines);
    expect(messages(run)).not.toContain('Response');
  });

  it("-v=6: each request to the apiserver and its answer, as client-go's round trippers log them", async () => {
    const run = await runAt(6);
    const responses = run.records.filter((r) => r.msg === 'Response');
    for (const r of responses) {
      expect(r).toMatchObject({ v: 6, verb: expect.any(String), milliseconds: expect.any(Number) });
      expect(String(r.url)).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    }
    expect(responses).toContainEqual(
      expect.objectContaining({ verb: 'PUT', url: expect.stringContaining('/api/v1/nodes/'), status: '200 OK' }),
    );
    expect(responses).toContainEqual(
      expect.objectContaining({ verb: 'PATCH', url: expect.stringMatching(/\/services\/[^/]+\/status$/) }),
    );
    expect(responses).toContainEqual(
      expect.objectContaining({ verb: 'GET', url: expect.stringContaining('watch=true'), status: '200 OK' }),
    );
    expect(JSON.stringify(responses)).not.toContain(info.adminToken);
  });

  it('PUT /debug/flags/v raises the level of a running CCM: V(4) records follow', async () => {
    const port = await freePort();
    const env = await start(0, [`--secure-port=${port}`, '--bind-address=127.0.0.1', '--delegated-auth=false']);
    const { service: first, run } = await scenario(env, 0);
    const ccm = env.ccm!;
    expect(ccm.logs().filter((r) => r.msg === 'plugin call')).toEqual([]);
    const put = await putInsecure(`https://127.0.0.1:${port}/debug/flags/v`, '4');
    expect(put).toEqual({ status: 200, body: 'successfully set klog.logging.verbosity to 4\n' });
    const service = uniqueName('lvput');
    await createService(service, run);
    const call = await ccm.waitForLog('a plugin call logged', (r) => r.msg === 'plugin call');
    expect(call).toMatchObject({ v: 4, plugin: 'devcloud' });
    await core.deleteNamespacedService({ namespace: 'default', name: service });
    await finish(env, first);
  });
});

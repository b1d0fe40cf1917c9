// The HTTPS endpoints of a running wasm-ccm process: health checks answer anonymously, /metrics and /debug/plugins
// only to a token the apiserver vouches for and RBAC allows (ClusterRole wasm-ccm:metrics-reader of manifests/).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import {
  type CCMProcess,
  DEVCLOUD_PLUGIN,
  deleteNodes,
  hasTaint,
  kubeletNode,
  startDevcloudCCM,
  UNINITIALIZED_TAINT,
} from '../../../lab/ccm/index.ts';
import { freePort, httpsGetInsecure, eventually } from '../../../lab/process/index.ts';
import {
  mintIdentity,
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';

interface Answer {
  status: number;
  body: string;
}

/** GET over HTTPS; the CCM serves a self-signed certificate, so it is not verified here. */
function get(url: string, token?: string): Promise<Answer> {
  return httpsGetInsecure(url, { token });
}

describe('health, metrics and debug endpoints of the wasm-ccm process', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const scraperName = uniqueName('scraper');
  const nodeName = uniqueName('serve-node');
  let cloud: Devcloud;
  let ccm: CCMProcess;
  let base = '';
  let ccmToken = '';
  let scraperToken = '';

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    ccmToken = (await ccmIdentity(info, admin)).token;
    scraperToken = (await mintIdentity(info, admin, { name: scraperName, clusterRole: 'wasm-ccm:metrics-reader' }))
      .token;
    cloud = await startDevcloud();
    const port = await freePort();
    // CCMProcess passes --secure-port=0 first: the later flag must win.
    ccm = startDevcloudCCM(info, ccmToken, cloud, 'serving', [
      '--controllers=cloud-node,cloud-node-lifecycle',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
    ]);
    const serving = await ccm.waitForLog('serving', (r) => r.msg === 'serving');
    expect(serving.url).toBe(`https://127.0.0.1:${port}`);
    base = String(serving.url);
    await ccm.ready();
    // One node through the plugin, so call and latency metrics have samples.
    cloud.addInstance({ name: nodeName });
    await core.createNode({ body: kubeletNode(nodeName, { ready: true }) });
    await eventually('node initialized', async () =>
      hasTaint(await core.readNode({ name: nodeName }), UNINITIALIZED_TAINT.key) ? undefined : true,
    );
  });

  afterAll(async () => {
    await ccm?.stop();
    await deleteNodes(admin, [nodeName]);
    await cloud?.stop();
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.deleteClusterRoleBinding({ name: scraperName }).catch(() => undefined);
    await core.deleteNamespacedServiceAccount({ name: scraperName, namespace: 'default' }).catch(() => undefined);
  });

  it('answers /healthz, /readyz and /livez anonymously, with one healthz check per controller, upstream-named', async () => {
    for (const path of ['/healthz', '/readyz', '/livez']) {
      expect(await get(`${base}${path}`), path).toEqual({ status: 200, body: 'ok' });
    }
    // Only the listed paths are open (exact match, as upstream's always-allow paths): a single check needs a
    // token whose RBAC allows it (the admin's here).
    expect((await get(`${base}/healthz/leaderElection`)).status).toBe(401);
    for (const path of ['/healthz/leaderElection', '/healthz/cloud-node-controller', '/livez/leaderElection']) {
      expect(await get(`${base}${path}`, info.adminToken), path).toEqual({ status: 200, body: 'ok' });
    }
    const verbose = await get(`${base}/healthz?verbose`);
    expect(verbose.status).toBe(200);
    // Upstream's check names (k8s.io/cloud-provider names), and no ping, as upstream's controller manager.
    expect(verbose.body.trim().split('\n')).toEqual([
      '[+]leaderElection ok',
      '[+]cloud-node-controller ok',
      '[+]cloud-node-lifecycle-controller ok',
      'healthz check passed',
    ]);
    expect((await get(`${base}/readyz?verbose`)).body).toContain('[+]provider ok');
    expect((await get(`${base}/healthz/no-such-check`, info.adminToken)).status).toBe(404);
  });

  it('refuses /metrics anonymously (401) and to a token without the metrics-reader role (403)', async () => {
    expect((await get(`${base}/metrics`)).status).toBe(401);
    expect((await get(`${base}/debug/plugins`)).status).toBe(401);
    expect((await get(`${base}/metrics`, 'not-a-real-token')).status).toBe(401);
    // The CCM's own identity may run the controllers but not scrape.
    const forbidden = await get(`${base}/metrics`, ccmToken);
    expect(forbidden.status).toBe(403);
  });

  it('serves /metrics to a wasm-ccm:metrics-reader token, with the controller, client and plugin series', async () => {
    const res = await get(`${base}/metrics`, scraperToken);
    expect(res.status).toBe(200);
    const m = res.body;
    expect(m).toMatch(/^workqueue_adds_total\{name="Nodes"\} [1-9]\d*$/m);
    expect(m).toMatch(/^leader_election_master_status\{name="cloud-controller-manager"\} 1$/m);
    expect(m).toMatch(/^rest_client_requests_total\{.*code="200".*\} [1-9]\d*$/m);
    expect(m).toMatch(/^running_managed_controllers\{name="cloud-node",manager="cloud-controller-manager"\} 1$/m);
    expect(m).toMatch(/^running_managed_controllers\{name="cloud-node-lifecycle",[^}]*\} 1$/m);
    expect(m).toMatch(/^node_controller_cloud_provider_taint_removal_delay_seconds_count [1-9]\d*$/m);
    expect(m).toMatch(/^wasm_ccm_plugin_calls_total\{[^}]*method="instanceMetadata"[^}]*\} [1-9]\d*$/m);
  });

  it('shows the loaded plugin on /debug/plugins: name, version, sha256, ABI and capabilities', async () => {
    const res = await get(`${base}/debug/plugins`, scraperToken);
    expect(res.status).toBe(200);
    const [plugin, ...more] = JSON.parse(res.body) as Record<string, unknown>[];
    expect(more).toEqual([]);
    expect(plugin).toMatchObject({
      name: 'devcloud',
      version: '1.0.0',
      sha256: createHash('sha256').update(readFileSync(DEVCLOUD_PLUGIN)).digest('hex'),
    });
    expect(plugin?.abi).toEqual(expect.any(String));
    expect(String(plugin?.abi)).not.toBe('');
    expect(plugin?.capabilities).toEqual(
      expect.arrayContaining(['instancesV2', 'loadBalancer', 'routes', 'zones', 'clusters']),
    );
    expect(plugin?.calls).toBeGreaterThan(0);
  });
});

// /configz in upstream's shape: the document upstream's CCM serves for the same flags (read from the v0.36.3 peer's
// /configz, its kubeconfig and cloud config paths aside) is what wasm-ccm serves.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configz, goDuration } from '../../../host/src/app/configz.ts';
import { parseCommandLine } from '../../../host/src/options/ccm-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'configz-'));
const kubeconfig = join(dir, 'admin.kubeconfig');
const cloudConfig = join(dir, 'devcloud.json');
writeFileSync(kubeconfig, '');
writeFileSync(cloudConfig, '{}');

const UPSTREAM = {
  'cloudcontrollermanager.config.k8s.io': {
    kind: 'CloudControllerManagerConfiguration',
    apiVersion: 'cloudcontrollermanager.config.k8s.io/v1alpha1',
    Generic: {
      Port: 0,
      Address: '0.0.0.0',
      MinResyncPeriod: '12h0m0s',
      ClientConnection: {
        kubeconfig,
        acceptContentTypes: '',
        contentType: 'application/vnd.kubernetes.protobuf',
        qps: 20,
        burst: 30,
      },
      ControllerStartInterval: '0s',
      LeaderElection: {
        leaderElect: true,
        leaseDuration: '15s',
        renewDeadline: '10s',
        retryPeriod: '2s',
        resourceLock: 'leases',
        resourceName: 'upstream-metrics',
        resourceNamespace: 'kube-system',
      },
      Controllers: ['*'],
      Debugging: { enableProfiling: true, enableContentionProfiling: false },
      LeaderMigrationEnabled: false,
      LeaderMigration: { leaderName: '', resourceLock: '', controllerLeaders: null },
    },
    KubeCloudShared: {
      CloudProvider: { Name: 'devcloud', CloudConfigFile: cloudConfig },
      ExternalCloudVolumePlugin: '',
      UseServiceAccountCredentials: false,
      AllowUntaggedCloud: false,
      RouteReconciliationPeriod: '10s',
      NodeMonitorPeriod: '5s',
      ClusterName: 'kubernetes',
      ClusterCIDR: '10.244.0.0/16',
      AllocateNodeCIDRs: true,
      CIDRAllocatorType: 'RangeAllocator',
      ConfigureCloudRoutes: true,
      NodeSyncPeriod: '0s',
    },
    NodeController: { ConcurrentNodeSyncs: 1, ConcurrentNodeStatusUpdates: 1 },
    ServiceController: { ConcurrentServiceSyncs: 1 },
    NodeStatusUpdateFrequency: '5m0s',
    Webhook: { Webhooks: null },
  },
};

describe('/configz', () => {
  it("is upstream's document for the same flags", () => {
    const parsed = parseCommandLine([
      '--cloud-provider=devcloud',
      `--cloud-config=${cloudConfig}`,
      `--kubeconfig=${kubeconfig}`,
      '--controllers=*',
      '--cluster-cidr=10.244.0.0/16',
      '--allocate-node-cidrs=true',
      '--configure-cloud-routes=true',
      '--use-service-account-credentials=false',
      '--leader-elect-resource-name=upstream-metrics',
    ]);
    if (parsed.kind !== 'run') throw new Error(`parsed as ${parsed.kind}`);
    expect(configz(parsed.options)).toEqual(UPSTREAM);
  });

  it("writes durations as Go's time.Duration does", () => {
    expect([0, 500, 1500, 15_000, 300_000, 43_200_000, 3_723_000].map(goDuration)).toEqual([
      '0s',
      '500ms',
      '1.5s',
      '15s',
      '5m0s',
      '12h0m0s',
      '1h2m3s',
    ]);
  });
});

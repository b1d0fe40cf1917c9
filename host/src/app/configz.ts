// /configz: the configuration the CCM runs with, in the shape upstream's serves (component-base configz, keyed by
// the group, holding a cloudcontrollermanager.config.k8s.io/v1alpha1 CloudControllerManagerConfiguration with Go's
// field names and durations), so tools that read a running CCM's settings read wasm-ccm's too. Values wasm-ccm has
// no setting for are upstream's defaults. The plugin configuration is not here: /debug/plugins shows it.
import type { CCMOptions } from '../options/ccm-options.ts';

const GROUP = 'cloudcontrollermanager.config.k8s.io';
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** A duration in milliseconds as Go's time.Duration.String() writes it: 12h0m0s, 5m0s, 15s, 1.5s, 500ms, 0s. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / HOUR_MS);
  const minutes = Math.floor((ms % HOUR_MS) / MINUTE_MS);
  const seconds = (ms % MINUTE_MS) / 1000;
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

/** The /configz document for `options`. */
export function configz(options: CCMOptions): Record<string, unknown> {
  const f = options.flags;
  return {
    [GROUP]: {
      kind: 'CloudControllerManagerConfiguration',
      apiVersion: `${GROUP}/v1alpha1`,
      Generic: {
        Port: 0,
        Address: '0.0.0.0',
        MinResyncPeriod: goDuration(f['min-resync-period']),
        ClientConnection: {
          kubeconfig: f.kubeconfig,
          acceptContentTypes: '',
          contentType: f['kube-api-content-type'],
          qps: f['kube-api-qps'],
          burst: f['kube-api-burst'],
        },
        ControllerStartInterval: goDuration(f['controller-start-interval']),
        LeaderElection: {
          leaderElect: f['leader-elect'],
          leaseDuration: goDuration(f['leader-elect-lease-duration']),
          renewDeadline: goDuration(f['leader-elect-renew-deadline']),
          retryPeriod: goDuration(f['leader-elect-retry-period']),
          resourceLock: f['leader-elect-resource-lock'],
          resourceName: f['leader-elect-resource-name'],
          resourceNamespace: f['leader-elect-resource-namespace'],
        },
        Controllers: f.controllers,
        Debugging: { enableProfiling: f.profiling, enableContentionProfiling: f['contention-profiling'] },
        LeaderMigrationEnabled: false,
        LeaderMigration: { leaderName: '', resourceLock: '', controllerLeaders: null },
      },
      KubeCloudShared: {
        CloudProvider: { Name: f['cloud-provider'], CloudConfigFile: f['cloud-config'] },
        ExternalCloudVolumePlugin: f['external-cloud-volume-plugin'],
        UseServiceAccountCredentials: f['use-service-account-credentials'],
        AllowUntaggedCloud: f['allow-untagged-cloud'],
        RouteReconciliationPeriod: goDuration(f['route-reconciliation-period']),
        NodeMonitorPeriod: goDuration(f['node-monitor-period']),
        ClusterName: f['cluster-name'],
        ClusterCIDR: f['cluster-cidr'],
        AllocateNodeCIDRs: f['allocate-node-cidrs'],
        CIDRAllocatorType: f['cidr-allocator-type'],
        ConfigureCloudRoutes: f['configure-cloud-routes'],
        NodeSyncPeriod: goDuration(f['node-sync-period']),
      },
      NodeController: {
        ConcurrentNodeSyncs: f['concurrent-node-syncs'],
        // 0 means as many as --concurrent-node-syncs: the number that runs.
        ConcurrentNodeStatusUpdates: f['concurrent-node-status-updates'] || f['concurrent-node-syncs'],
      },
      ServiceController: { ConcurrentServiceSyncs: f['concurrent-service-syncs'] },
      NodeStatusUpdateFrequency: goDuration(f['node-status-update-frequency']),
      Webhook: { Webhooks: null },
    },
  };
}

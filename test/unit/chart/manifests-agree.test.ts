// The chart and manifests/ install the same CCM: for the parts they share (RBAC rules, the pod's security, probes,
// resources, placement, the flags and the plugin's settings), the chart's default DaemonSet equals
// manifests/daemonset/daemonset.yaml and its Deployment (examples/deployment.yaml) manifests/deployment.yaml.
// Flags only the chart passes carry the CCM's own defaults, so both run the same.
import { join } from 'node:path';
import type {
  V1ClusterRole,
  V1DaemonSet,
  V1Deployment,
  V1PodDisruptionBudget,
  V1PodSpec,
  V1Role,
} from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';
import { parseDuration } from '../../../host/src/util/duration.ts';
import {
  daemonSet,
  deployment,
  flagPairs,
  kustomization,
  mountedFile,
  objectIn,
  sourceContent,
  type Workload,
} from '../../support/manifest-model.ts';
import {
  chartTestSetup,
  DEVCLOUD_MODULE,
  EXAMPLES_DIR,
  helmTemplate,
  only,
  type RenderedObject,
} from '../../support/chart-model.ts';

chartTestSetup('wasm-ccm-chart-agree-');

/** The rules manifests/controller-accounts' patch gives the CCM's own ClusterRole. */
function controllerAccountsCCMRules(): unknown {
  const patch = kustomization('controller-accounts').patches?.[0]?.patch ?? '';
  const ops = load(patch) as { op: string; path: string; value: unknown }[];
  return ops.find((o) => o.op === 'replace' && o.path === '/rules')?.value;
}

/** Flags manifests/ gives for one provider, which the chart's plugin configuration says instead. */
const PLUGIN_FLAGS = new Set(['plugin', 'cloud-config', 'plugin-credentials', 'plugin-allowed-hosts', 'plugin-config']);

interface PluginConfigDoc {
  providers: { allowedHosts?: string[]; cloudConfig?: unknown }[];
}

function chartPod(objects: readonly RenderedObject[], kind: string): V1PodSpec {
  const pod = only<V1DaemonSet | V1Deployment>(objects, kind).spec?.template.spec;
  if (!pod) throw new Error(`${kind} without a pod`);
  return pod;
}

/** A CCM flag's default as the command line writes it. */
function defaultText(name: string): string {
  const spec = CCM_FLAGS[name as keyof typeof CCM_FLAGS];
  if (spec.type === 'stringList') return (spec.default as string[]).join(',');
  if (spec.type === 'duration') return `${spec.default as number}ms`;
  return String(spec.default);
}

function sameValue(name: string, a: string, b: string): boolean {
  if (CCM_FLAGS[name as keyof typeof CCM_FLAGS]?.type === 'duration') return parseDuration(a) === parseDuration(b);
  return a === b;
}

describe.each([
  { manifest: daemonSet(), kind: 'DaemonSet', valuesFiles: [] as string[] },
  { manifest: deployment(), kind: 'Deployment', valuesFiles: [join(EXAMPLES_DIR, 'deployment.yaml')] },
])(
  'the chart’s $kind and manifests/',
  ({ manifest, kind, valuesFiles }: { manifest: Workload; kind: string; valuesFiles: string[] }) => {
    let objects: RenderedObject[] = [];
    let pod: V1PodSpec;

    beforeAll(async () => {
      const result = await helmTemplate({ valuesFiles, setFiles: DEVCLOUD_MODULE });
      expect(result.code, result.stderr).toBe(0);
      objects = result.objects;
      pod = chartPod(objects, kind);
    }, 60_000);

    it('run the same pod: security, network, placement, priority, grace period', () => {
      const m = manifest.pod;
      expect(pod.securityContext).toEqual(m.securityContext);
      expect(pod.hostNetwork).toEqual(m.hostNetwork);
      expect(pod.dnsPolicy).toEqual(m.dnsPolicy);
      expect(pod.nodeSelector).toEqual(m.nodeSelector);
      expect(pod.tolerations).toEqual(m.tolerations);
      expect(pod.priorityClassName).toBe(m.priorityClassName);
      expect(pod.terminationGracePeriodSeconds).toBe(m.terminationGracePeriodSeconds);
      // The anti-affinity selects each install's own pods (the chart's labels add the release).
      const strip = (a: V1PodSpec['affinity']) =>
        JSON.parse(
          JSON.stringify(a ?? {}).replace(/"labelSelector":\{"matchLabels":\{[^}]*\}\}/g, '"labelSelector":{}'),
        );
      expect(strip(pod.affinity)).toEqual(strip(m.affinity));
    });

    it('run the same container: security, probes, resources, environment, ports', () => {
      const c = pod.containers[0];
      const m = manifest.container;
      expect(c?.securityContext).toEqual(m.securityContext);
      expect(c?.startupProbe).toEqual(m.startupProbe);
      expect(c?.livenessProbe).toEqual(m.livenessProbe);
      expect(c?.readinessProbe).toEqual(m.readinessProbe);
      expect(c?.resources).toEqual(m.resources);
      expect(c?.env).toEqual(m.env?.filter((e) => e.value !== undefined));
      expect(c?.ports).toEqual(m.ports);
    });

    it('pass the same flags, and only the CCM’s defaults where manifests/ gives none', () => {
      const chart = new Map(flagPairs(pod.containers[0] as Workload['container']));
      const manifests = new Map(flagPairs(manifest.container));
      for (const [name, value] of manifests) {
        if (PLUGIN_FLAGS.has(name)) continue;
        expect(chart.get(name), `--${name}`).toBeDefined();
        expect(sameValue(name, chart.get(name) as string, value), `--${name}: ${chart.get(name)} vs ${value}`).toBe(
          true,
        );
      }
      for (const [name, value] of chart) {
        if (PLUGIN_FLAGS.has(name) || manifests.has(name)) continue;
        expect(sameValue(name, value, defaultText(name)), `--${name}=${value}: the CCM's default`).toBe(true);
      }
    });

    it('give the plugin the same allowed hosts and cloud config', () => {
      const config = only<{ data: Record<string, string> } & V1Role>(objects, 'ConfigMap', 'wasm-ccm-plugin-config');
      const provider = (load(config.data['plugins.yaml'] as string) as PluginConfigDoc).providers[0];
      const hosts = flagPairs(manifest.container).find(([n]) => n === 'plugin-allowed-hosts')?.[1];
      expect(provider?.allowedHosts?.join(',')).toBe(hosts);
      const cloudConfigPath = flagPairs(manifest.container).find(([n]) => n === 'cloud-config')?.[1] as string;
      const cloudConfig = sourceContent(mountedFile(manifest, cloudConfigPath))?.toString('utf8') as string;
      expect(provider?.cloudConfig).toEqual(JSON.parse(cloudConfig));
    });

    it('grant the same RBAC rules', () => {
      const pairs: [string, string, string][] = [
        ['ClusterRole', 'wasm-ccm:cloud-controller-manager', 'system:cloud-controller-manager'],
        ['Role', 'wasm-ccm:leader-election', 'cloud-controller-manager:leader-election'],
        ['Role', 'wasm-ccm:plugins', 'cloud-controller-manager:plugins'],
        ['ClusterRole', 'wasm-ccm:metrics-reader', 'wasm-ccm:metrics-reader'],
      ];
      for (const [k, chartName, manifestName] of pairs) {
        const chartRole = only<V1ClusterRole | V1Role>(objects, k, chartName);
        const manifestRole = objectIn<V1ClusterRole | V1Role>('rbac.yaml', k, manifestName);
        expect(chartRole.rules, `${k} ${chartName}`).toEqual(manifestRole.rules);
        expect(chartRole.metadata?.namespace).toBe(manifestRole.metadata?.namespace);
      }
      expect(only(objects, 'ServiceAccount').metadata?.name).toBe(
        objectIn('rbac.yaml', 'ServiceAccount').metadata?.name,
      );
    });

    it('budget disruptions alike (the Deployment only)', () => {
      const pdbs = objects.filter((o) => o.object.kind === 'PodDisruptionBudget');
      if (kind === 'DaemonSet') {
        expect(pdbs).toEqual([]);
        return;
      }
      const chartPdb = only<V1PodDisruptionBudget>(objects, 'PodDisruptionBudget');
      const manifestPdb = objectIn<V1PodDisruptionBudget>('pdb.yaml', 'PodDisruptionBudget');
      const { selector: _a, ...chartSpec } = chartPdb.spec ?? {};
      const { selector: _b, ...manifestSpec } = manifestPdb.spec ?? {};
      expect(chartSpec).toEqual(manifestSpec);
      const d = only<V1Deployment>(objects, 'Deployment');
      const m = manifest.object as V1Deployment;
      expect(d.spec?.strategy).toEqual(m.spec?.strategy);
      expect(d.spec?.replicas).toBe(m.spec?.replicas);
    });
  },
);

describe('useServiceAccountCredentials', () => {
  it('passes the flag and renders the RBAC of manifests/controller-accounts, rule for rule', async () => {
    const off = await helmTemplate({ setFiles: DEVCLOUD_MODULE });
    expect(off.objects.some((o) => o.object.metadata?.name === 'wasm-ccm:controller-accounts')).toBe(false);
    const on = await helmTemplate({ setFiles: DEVCLOUD_MODULE, setJson: { useServiceAccountCredentials: true } });
    expect(on.code, on.stderr).toBe(0);
    expect(chartPod(on.objects, 'DaemonSet').containers[0]?.args).toContain('--use-service-account-credentials=true');
    const minting = only<V1Role>(on.objects, 'Role', 'wasm-ccm:controller-accounts');
    expect(minting.metadata?.namespace).toBe('kube-system');
    expect(minting.rules).toEqual(
      objectIn<V1Role>('controller-accounts/rbac.yaml', 'Role', 'cloud-controller-manager:controller-accounts').rules,
    );
    // The CCM's own role keeps what the component's patch leaves it: reading, events, delegated auth.
    expect(only<V1ClusterRole>(on.objects, 'ClusterRole', 'wasm-ccm:cloud-controller-manager').rules).toEqual(
      controllerAccountsCCMRules(),
    );
    for (const controller of ['node-controller', 'service-controller', 'route-controller']) {
      const chart = only<V1ClusterRole>(on.objects, 'ClusterRole', `wasm-ccm:${controller}`);
      const manifest = objectIn<V1ClusterRole>(
        'controller-accounts/rbac.yaml',
        'ClusterRole',
        `wasm-ccm:${controller}`,
      );
      expect(chart.rules, controller).toEqual(manifest.rules);
    }
  });
});

// charts/wasm-ccm with a real helm: `helm lint` and `helm template` pass for the default values and every example;
// the rendered command line and plugin configuration are ones the CCM accepts (its own parsers, with every file the
// configuration names materialized from what the chart renders); placement, network and the scraping objects follow
// the kind and serviceMonitor.enabled.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject, V1Deployment, V1Secret } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { CCM_FLAGS, parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import {
  CHART_DIR,
  EXAMPLES_DIR,
  exampleFiles,
  helm,
  chartTestSetup,
  DEVCLOUD_MODULE,
  helmTemplate,
  materializeArgs,
  only,
  type RenderedObject,
  type RenderOptions,
  renderedPod,
  valueArgs,
} from '../../support/chart-model.ts';

/** The default values plus the one value they leave to the operator (the module). */
const DEFAULTS: RenderOptions = { setFiles: DEVCLOUD_MODULE };
const EXAMPLES = exampleFiles().map((file) => ({
  file,
  options: { valuesFiles: [join(EXAMPLES_DIR, file)], setFiles: DEVCLOUD_MODULE } satisfies RenderOptions,
}));
const CASES = [{ file: '(default values)', options: DEFAULTS }, ...EXAMPLES];

const { scratch } = chartTestSetup('wasm-ccm-chart-');

describe.each(CASES)('charts/wasm-ccm with $file', ({ file, options }) => {
  let objects: RenderedObject[] = [];

  beforeAll(async () => {
    const result = await helmTemplate(options);
    expect(result.code, result.stderr).toBe(0);
    objects = result.objects;
  }, 60_000);

  it('passes helm lint', async () => {
    const result = await helm(['lint', '--strict', CHART_DIR, '--namespace', 'kube-system', ...valueArgs(options)]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('renders objects that all name themselves, in the release namespace unless cluster-scoped', () => {
    expect(objects.length).toBeGreaterThan(5);
    const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding']);
    for (const { object, source } of objects) {
      expect(object.apiVersion, source).toBeTruthy();
      expect(object.metadata?.name, source).toBeTruthy();
      if (clusterScoped.has(object.kind as string)) expect(object.metadata?.namespace, source).toBeUndefined();
      else expect(object.metadata?.namespace, `${object.kind} ${object.metadata?.name}`).toBe('kube-system');
    }
  });

  it('passes the CCM only flags it knows, each once, that its own parser accepts with the rendered files', () => {
    const { pod } = renderedPod(objects);
    const args = pod.containers[0]?.args ?? [];
    const names = args.map((a) => /^--([a-z0-9-]+)=/.exec(a)?.[1]);
    for (const n of names) expect(Object.keys(CCM_FLAGS), `--${n}`).toContain(n);
    expect(new Set(names).size).toBe(names.length);
    // Every file the plugin configuration names is written where the pod would see it, under a scratch root.
    const root = mkdtempSync(join(scratch, `${file.replace(/\W+/g, '-')}-`));
    const parsed = parseCommandLine(materializeArgs(objects, root));
    expect(parsed.kind).toBe('run');
  });
});

describe('kind, network and scraping', () => {
  it('runs the default DaemonSet on control-plane nodes on the host network, and no PodDisruptionBudget', async () => {
    const { objects } = await helmTemplate(DEFAULTS);
    const { kind, pod } = renderedPod(objects);
    expect(kind).toBe('DaemonSet');
    expect(pod.hostNetwork).toBe(true);
    expect(pod.dnsPolicy).toBe('Default');
    expect(pod.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': '' });
    expect(pod.priorityClassName).toBe('system-cluster-critical');
    expect(pod.containers[0]?.image, "the chart's appVersion").toBe('wasm-ccm:0.1.0');
    expect(objects.map((o) => o.object.kind)).not.toContain('PodDisruptionBudget');
    expect(objects.map((o) => o.object.kind)).not.toContain('ServiceMonitor');
  });

  it('serves HTTPS with the certificate and key of tls.existingSecret, mounted where the flags point', async () => {
    const { objects, stderr } = await helmTemplate({ ...DEFAULTS, setJson: { 'tls.existingSecret': 'ccm-tls' } });
    expect(objects.length, stderr).toBeGreaterThan(0);
    const { pod } = renderedPod(objects);
    const volume = pod.volumes?.find((v) => v.secret?.secretName === 'ccm-tls');
    const mount = pod.containers[0]?.volumeMounts?.find((m) => m.name === volume?.name);
    expect(mount?.mountPath).toBeDefined();
    const args = pod.containers[0]?.args ?? [];
    // The keys of a kubernetes.io/tls Secret.
    expect(args).toContain(`--tls-cert-file=${mount?.mountPath}/tls.crt`);
    expect(args).toContain(`--tls-private-key-file=${mount?.mountPath}/tls.key`);
    const without = renderedPod((await helmTemplate(DEFAULTS)).objects).pod.containers[0]?.args ?? [];
    expect(without.filter((a) => a.startsWith('--tls-'))).toEqual([]);
  });

  it('runs examples/deployment.yaml as two replicas on the pod network with a PodDisruptionBudget', async () => {
    const { objects } = await helmTemplate({ ...DEFAULTS, valuesFiles: [join(EXAMPLES_DIR, 'deployment.yaml')] });
    const deployment = only<V1Deployment>(objects, 'Deployment');
    expect(deployment.spec?.replicas).toBe(2);
    expect(deployment.spec?.template.spec?.hostNetwork).toBeUndefined();
    expect(deployment.spec?.template.spec?.containers[0]?.args).toContain('--leader-elect=true');
    const pdb = only<KubernetesObject & { spec: { selector: { matchLabels: object } } }>(
      objects,
      'PodDisruptionBudget',
    );
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec?.selector.matchLabels);
  });

  it('scrapes with a ServiceMonitor whose token belongs to a subject bound to the metrics-reader ClusterRole', async () => {
    const { objects } = await helmTemplate({ ...DEFAULTS, valuesFiles: [join(EXAMPLES_DIR, 'service-monitor.yaml')] });
    type Monitor = KubernetesObject & {
      spec: { endpoints: { port: string; scheme: string; authorization: { credentials: { name: string } } }[] };
    };
    const monitor = only<Monitor>(objects, 'ServiceMonitor');
    const endpoint = monitor.spec.endpoints[0];
    expect(endpoint?.scheme).toBe('https');
    const secret = only<V1Secret>(objects, 'Secret', endpoint?.authorization.credentials.name);
    expect(secret.type).toBe('kubernetes.io/service-account-token');
    const scraper = secret.metadata?.annotations?.['kubernetes.io/service-account.name'];
    type Binding = KubernetesObject & { roleRef: { name: string }; subjects: { kind: string; name: string }[] };
    const binding = only<Binding>(objects, 'ClusterRoleBinding', 'wasm-ccm:metrics-reader');
    expect(binding.roleRef.name).toBe('wasm-ccm:metrics-reader');
    expect(binding.subjects.map((s) => `${s.kind}/${s.name}`)).toEqual([
      `ServiceAccount/${scraper}`,
      'ServiceAccount/prometheus',
    ]);
    const service = only<KubernetesObject & { spec: { ports: { name: string; port: number }[] } }>(objects, 'Service');
    expect(service.spec.ports.map((p) => p.name)).toContain(endpoint?.port);
    expect(service.spec.ports[0]?.port).toBe(10258);
  });
});

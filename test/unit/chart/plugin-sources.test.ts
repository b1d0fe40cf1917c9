// How the chart turns plugins.providers into what the CCM reads: an image source becomes an image volume and the
// module's file in it, an existing credentials Secret its own mount, a ConfigMap source in another namespace a
// Role there; defaultProvider and loadBalancerClasses reach the plugin configuration, which the CCM's own parser
// accepts with several providers.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { V1ConfigMap, V1Role } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import {
  EXAMPLES_DIR,
  chartTestSetup,
  DEVCLOUD_MODULE,
  helmTemplate,
  materializeArgs,
  only,
  type RenderedObject,
  renderedPod,
} from '../../support/chart-model.ts';

const { scratch } = chartTestSetup('wasm-ccm-chart-sources-');

interface RenderedConfig {
  defaultProvider?: string;
  loadBalancerClasses?: Record<string, string>;
  providers: {
    name: string;
    source: { file?: string; configMap?: Record<string, string> };
    credentials?: { file: string };
  }[];
}

function pluginConfig(objects: readonly RenderedObject[]): RenderedConfig {
  const cm = only<V1ConfigMap>(objects, 'ConfigMap', 'wasm-ccm-plugin-config');
  return load(cm.data?.['plugins.yaml'] as string) as RenderedConfig;
}

describe('plugin sources', () => {
  it('mounts an image source as an image volume and points the provider at the module file in it', async () => {
    const result = await helmTemplate({ valuesFiles: [join(EXAMPLES_DIR, 'image-volume.yaml')] });
    expect(result.code, result.stderr).toBe(0);
    const { pod } = renderedPod(result.objects);
    const volume = pod.volumes?.find((v) => (v as { image?: unknown }).image !== undefined) as
      { name: string; image: { reference: string; pullPolicy: string } } | undefined;
    expect(volume?.image).toEqual({
      reference: 'registry.example.com/wasm-ccm/devcloud-plugin:1.0.0',
      pullPolicy: 'IfNotPresent',
    });
    const mount = pod.containers[0]?.volumeMounts?.find((m) => m.name === volume?.name);
    expect(mount?.readOnly).toBe(true);
    const provider = pluginConfig(result.objects).providers[0];
    expect(provider?.source).toEqual({ file: `${mount?.mountPath}/devcloud.wasm` });
    // The Secret of the operator's is mounted, and no chart-made Secret holds credentials.
    const secretVolume = pod.volumes?.find((v) => v.secret?.secretName === 'devcloud-credentials');
    const secretMount = pod.containers[0]?.volumeMounts?.find((m) => m.name === secretVolume?.name);
    expect(provider?.credentials).toEqual({ file: `${secretMount?.mountPath}/credentials.json` });
    expect(result.objects.filter((o) => o.object.kind === 'Secret')).toEqual([]);
    // No module read through the API: no Role for ConfigMaps.
    expect(result.objects.filter((o) => o.object.metadata?.name === 'wasm-ccm:plugins')).toEqual([]);
  });

  it('routes loadBalancerClasses to several providers, with a Role in each namespace whose ConfigMap is read', async () => {
    // The second provider ships a gzipped module under a raised decompression cap.
    const result = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: {
        'plugins.defaultProvider': 'devcloud',
        'plugins.loadBalancerClasses': { 'devcloud.example/internal': 'internal' },
        'plugins.providers': [
          { name: 'devcloud', source: { module: true }, capabilities: ['instancesV2', 'loadBalancer'] },
          {
            name: 'internal',
            source: { configMap: { name: 'internal-plugin', key: 'internal.wasm.gz', namespace: 'plugins' } },
            credentials: { entries: [{ name: 'api', hosts: ['internal.example'], bearerToken: 't' }] },
            limits: { poolSize: 2, poolMinSize: 1, maxModuleMB: 256 },
          },
        ],
      },
    });
    expect(result.code, result.stderr).toBe(0);
    const config = pluginConfig(result.objects);
    expect(config.defaultProvider).toBe('devcloud');
    expect(config.loadBalancerClasses).toEqual({ 'devcloud.example/internal': 'internal' });
    expect(config.providers[1]?.source).toEqual({
      configMap: { name: 'internal-plugin', key: 'internal.wasm.gz', namespace: 'plugins' },
    });
    const roles = result.objects.filter(
      (o) => o.object.kind === 'Role' && o.object.metadata?.name === 'wasm-ccm:plugins',
    );
    expect(roles.map((r) => r.object.metadata?.namespace).sort()).toEqual(['kube-system', 'plugins']);
    expect((roles[0]?.object as V1Role).rules?.[0]?.resources).toEqual(['configmaps']);

    const parsed = parseCommandLine(materializeArgs(result.objects, mkdtempSync(join(scratch, 'multi-'))));
    if (parsed.kind !== 'run') throw new Error(`parsed as ${parsed.kind}`);
    expect(parsed.options.pluginConfig?.defaultProvider).toBe('devcloud');
    expect([...(parsed.options.pluginConfig?.loadBalancerClasses ?? [])]).toEqual([
      ['devcloud.example/internal', 'internal'],
    ]);
    expect(parsed.options.pluginConfig?.providers[1]?.limits).toMatchObject({
      poolSize: 2,
      poolMinSize: 1,
      maxModuleMB: 256,
    });
  });
});

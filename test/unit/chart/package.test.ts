// `helm package` makes the chart's .tgz (what `helm push ... oci://` publishes): its Chart.yaml carries the metadata
// Artifact Hub reads, appVersion is the CCM's version, and the packaged chart keeps its checks and the generated
// flag list (a bad value fails `helm template` of the .tgz as it does of the directory).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR, chartTestSetup, DEVCLOUD_MODULE, helm, ROOT, valueArgs } from '../../support/chart-model.ts';

const { scratch } = chartTestSetup('wasm-ccm-chart-package-');

interface ChartMetadata {
  name: string;
  version: string;
  appVersion: string;
  kubeVersion: string;
  maintainers: { name: string }[];
  annotations: Record<string, string>;
}

describe('helm package charts/wasm-ccm', () => {
  let archive = '';

  beforeAll(async () => {
    const result = await helm(['package', CHART_DIR, '--destination', scratch]);
    expect(result.code, result.stderr).toBe(0);
    archive = /saved it to: (\S+\.tgz)/.exec(result.stdout)?.[1] ?? '';
  }, 60_000);

  it('names the archive by the chart and its version, and helm show chart reads its metadata', async () => {
    const chart = load(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as ChartMetadata;
    expect(archive).toBe(join(scratch, `wasm-ccm-${chart.version}.tgz`));
    const shown = await helm(['show', 'chart', archive]);
    expect(shown.code, shown.stderr).toBe(0);
    const metadata = load(shown.stdout) as ChartMetadata;
    expect(metadata).toMatchObject({ name: 'wasm-ccm', version: chart.version, kubeVersion: '>=1.31.0-0' });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(metadata.appVersion).toBe(pkg.version);
    expect(metadata.maintainers.length).toBeGreaterThan(0);
    expect(metadata.annotations['artifacthub.io/license']).toBe('Apache-2.0');
    expect(metadata.annotations['artifacthub.io/changes']).toContain('kind: added');
  });

  it('packs the checks and the flag list: the .tgz refuses a bad value and renders good ones', async () => {
    const bad = await helm([
      'template',
      'wasm-ccm',
      archive,
      ...valueArgs({ setFiles: DEVCLOUD_MODULE, setJson: { extraArgs: { 'no-such-flag': true } } }),
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('extraArgs.no-such-flag: --no-such-flag is not a flag of wasm-ccm');
    const good = await helm([
      'template',
      'wasm-ccm',
      archive,
      ...valueArgs({ setFiles: DEVCLOUD_MODULE, setJson: { extraArgs: { profiling: false } } }),
    ]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('--profiling=false');
  });
});

// Command lines written for other cloud-controller-managers start wasm-ccm: upstream's flags are accepted with
// upstream's meaning, inert ones are said to do nothing, and values wasm-ccm cannot honour exit 2 naming the flag.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { type CCMOptions, parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { parseFeatureGates } from '../../../host/src/options/feature-gates.ts';
import { FlagError } from '../../../host/src/options/flagset.ts';
import { tlsServerOptions } from '../../../host/src/options/tls-flags.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-upstream-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cloudConfig = join(dir, 'cloud.conf');
writeFileSync(cloudConfig, '[Global]\n');
const plugin = join(dir, 'provider.wasm');
writeFileSync(plugin, new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
// component-base's preferred and insecure suites, less the RC4 ones no OpenSSL 3 has.
const UPSTREAM_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
];
// What replaces a chart's provider: wasm-ccm's provider and its plugin.
const OURS = ['--cloud-provider=devcloud', `--plugin=${plugin}`];

function run(argv: string[]): CCMOptions {
  const cmd = parseCommandLine(argv);
  if (cmd.kind !== 'run') throw new Error(`expected run, got ${cmd.kind}`);
  return cmd.options;
}

function refused(argv: string[], flag: string, message: RegExp): void {
  let error: unknown;
  try {
    parseCommandLine([...OURS, ...argv]);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(FlagError);
  expect((error as FlagError).flag).toBe(flag);
  expect((error as FlagError).message).toMatch(message);
}

// The container args of the charts' DaemonSet templates, with each chart's provider flags replaced by OURS and
// kubelet's $(VAR) expansion done.
const CHARTS: Record<string, string[]> = {
  'cloud-provider-openstack': [
    '--v=2',
    `--cloud-config=${cloudConfig}`,
    '--cluster-name=kubernetes',
    '--use-service-account-credentials=false',
    '--controllers=cloud-node,cloud-node-lifecycle,route,service',
    '--bind-address=127.0.0.1',
  ],
  'cloud-provider-aws': ['--v=2', '--use-service-account-credentials=true'],
  'hcloud-cloud-controller-manager': [
    '--allow-untagged-cloud',
    '--route-reconciliation-period=30s',
    '--webhook-secure-port=0',
    '--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true',
  ],
  'cloud-provider-vsphere': ['--v=2', `--cloud-config=${cloudConfig}`],
};

describe('upstream charts', () => {
  it.each(Object.entries(CHARTS))("%s's arguments start wasm-ccm", (_chart, args) => {
    expect(() => run([...OURS, ...args])).not.toThrow();
  });

  it('say that --allow-untagged-cloud is deprecated, as pflag does, and leave it out of --help', () => {
    const options = run([...OURS, ...(CHARTS['hcloud-cloud-controller-manager'] as string[])]);
    expect(options.warnings).toContain(
      'Flag --allow-untagged-cloud has been deprecated, This flag is deprecated and will be removed in a future release. A cluster-id will be required on cloud instances.',
    );
    const help = parseCommandLine(['--help']);
    expect(help.kind === 'help' && help.text).not.toContain('--allow-untagged-cloud');
    expect(help.kind === 'help' && help.text).toContain('--use-service-account-credentials');
  });
});

describe('flags upstream takes that change nothing there either', () => {
  it('--node-sync-period: accepted with the deprecation pflag prints, shown in /configz, left out of --help', () => {
    const options = run([...OURS, '--node-sync-period=5s']);
    expect(options.flags['node-sync-period']).toBe(5000);
    expect(options.warnings).toEqual([
      'Flag --node-sync-period has been deprecated, This flag is currently no-op and will be deleted.',
    ]);
    const help = parseCommandLine(['--help']);
    expect(help.kind === 'help' && help.text).not.toContain('--node-sync-period');
    expect(() => run([...OURS, '--node-sync-period=soon'])).toThrow(/--node-sync-period: invalid duration "soon"/);
  });

  it('-v2, -v=2 and -v 2 set the verbosity, as pflag reads the shorthand', () => {
    for (const v of [['-v2'], ['-v=2'], ['-v', '2']]) expect(run([...OURS, ...v]).flags.v).toBe(2);
  });

  it('--version=raw asks for the raw version', () => {
    expect(parseCommandLine(['--version=raw'])).toEqual({ kind: 'version', raw: true });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version', raw: false });
  });
});

describe('--feature-gates', () => {
  it("parses Name=bool pairs with ParseBool's forms, merges repeated flags, and applies AllAlpha to unset gates", () => {
    const options = run([
      ...OURS,
      '--feature-gates=AllAlpha=true,NativeHistograms=false',
      '--feature-gates=ContextualLogging=F',
    ]);
    expect(options.featureGates).toMatchObject({
      CloudControllerManagerWatchBasedRoutesReconciliation: true,
      NativeHistograms: false,
      ContextualLogging: false,
      LoggingBetaOptions: true,
    });
    expect(parseFeatureGates([])).toMatchObject({ CloudControllerManagerWatchBasedRoutesReconciliation: false });
    // AllBeta=false turns default-on beta gates off unless they are set themselves.
    expect(parseFeatureGates(['AllBeta=false', 'LoggingBetaOptions=true'])).toMatchObject({
      ContextualLogging: false,
      LoggingBetaOptions: true,
    });
  });

  it('refuses an unknown gate and a value that is not a boolean, naming them', () => {
    refused(
      ['--feature-gates=StableLoadBalancerNodeSet=true'],
      'feature-gates',
      /unrecognized feature gate: StableLoadBalancerNodeSet/,
    );
    refused(['--feature-gates=AllBeta=yes'], 'feature-gates', /invalid value of AllBeta=yes/);
    refused(['--feature-gates=AllBeta'], 'feature-gates', /missing bool value for AllBeta/);
  });
});

describe('inert and refused upstream flags', () => {
  it('warns about an inert flag given another value than its default, and not about its default', () => {
    const warned = run([
      ...OURS,
      '--contention-profiling=true',
      '--cert-dir=/var/run/certs',
      '--webhook-secure-port=10260',
    ]);
    expect(warned.warnings).toEqual([
      '--contention-profiling is accepted for compatibility and has no effect: wasm-ccm serves no /debug/pprof',
      '--cert-dir is accepted for compatibility and has no effect: the self-signed certificate stays in memory',
    ]);
  });

  it('exits 2 for what wasm-ccm cannot do, naming the flag', () => {
    refused(['--enable-leader-migration'], 'enable-leader-migration', /leader migration is not supported/);
    refused(['--tls-sni-cert-key=a.crt,a.key'], 'tls-sni-cert-key', /SNI certificate selection is not supported/);
    refused(['--webhooks=-foo'], 'webhooks', /"foo" is not in the list of known webhooks/);
    refused(['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'], 'tls-cipher-suites', /not supported or doesn't exist/);
    refused(['--tls-min-version=VersionTLS14'], 'tls-min-version', /unknown tls version/);
    refused(['--kube-api-content-type=text/plain'], 'kube-api-content-type', /is not application/);
    refused(['--log-json-split-stream'], 'log-json-split-stream', /LoggingAlphaOptions/);
    refused(['--webhook-secure-port=70000'], 'webhook-secure-port', /between 0 and 65535/);
    refused([`--authentication-kubeconfig=${join(dir, 'absent')}`], 'authentication-kubeconfig', /cannot read/);
  });

  it('takes booleans as strconv.ParseBool does and appends repeated list flags, as pflag does', () => {
    const options = run([...OURS, '--leader-elect=False', '--controllers=cloud-node', '--controllers=route']);
    expect(options.flags['leader-elect']).toBe(false);
    expect([...options.controllers].sort()).toEqual(['cloud-node', 'route']);
  });
});

describe('TLS flags', () => {
  it("translate Go's names to Node's, keeping TLS 1.3 suites as Go does", () => {
    expect(
      tlsServerOptions({
        cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
        minVersion: 'VersionTLS12',
        curvePreferences: ['29', '23'],
      }),
    ).toEqual({
      ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256',
      minVersion: 'TLSv1.2',
      ecdhCurve: 'X25519:P-256',
    });
    expect(tlsServerOptions({ cipherSuites: [], minVersion: '', curvePreferences: [] })).toEqual({});
  });

  it("give Node's TLS only names its OpenSSL takes, and refuse a suite it lacks", () => {
    refused(['--tls-cipher-suites=TLS_RSA_WITH_3DES_EDE_CBC_SHA'], 'tls-cipher-suites', /not offered by this build/);
    for (const suite of UPSTREAM_SUITES.filter((s) => !s.includes('3DES'))) {
      const options = tlsServerOptions({ cipherSuites: [suite], minVersion: 'VersionTLS10', curvePreferences: [] });
      expect(() => createSecureContext(options), suite).not.toThrow();
    }
    for (const curve of ['23', '24', '25', '29']) {
      const options = tlsServerOptions({ cipherSuites: [], minVersion: '', curvePreferences: [curve] });
      expect(() => createSecureContext(options), curve).not.toThrow();
    }
  });
});

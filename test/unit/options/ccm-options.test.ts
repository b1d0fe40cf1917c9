import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CCMOptions, parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { FlagError } from '../../../host/src/options/flagset.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const badCredentials = join(dir, 'bad-credentials.json');
writeFileSync(badCredentials, '{"credentials":[{"name":"api","hosts":["api.example"]}]}');
// An AWS key entry whose key files are not there (the Secret is not mounted).
const unmountedAwsKey = join(dir, 'aws-credentials.json');
writeFileSync(
  unmountedAwsKey,
  JSON.stringify({
    credentials: [
      {
        name: 'aws',
        hosts: ['ec2.us-east-1.amazonaws.com'],
        awsSigV4: { accessKeyIdFile: 'aws/id', secretAccessKeyFile: 'aws/secret', region: 'us-east-1' },
      },
    ],
  }),
);

function run(argv: string[]): CCMOptions {
  const cmd = parseCommandLine(argv);
  if (cmd.kind !== 'run') throw new Error(`expected run, got ${cmd.kind}`);
  return cmd.options;
}

describe('wasm-ccm command line', () => {
  it('has the upstream defaults', () => {
    const { flags, controllers, clusterCIDRs, cloudConfig } = run(['--cloud-provider=devcloud']);
    expect(flags).toMatchObject({
      'cloud-config': '',
      'leader-elect': true,
      'leader-elect-lease-duration': 15_000,
      'leader-elect-renew-deadline': 10_000,
      'leader-elect-retry-period': 2_000,
      'leader-elect-resource-name': 'cloud-controller-manager',
      'leader-elect-resource-namespace': 'kube-system',
      'secure-port': 10258,
      'bind-address': '0.0.0.0',
      'cluster-name': 'kubernetes',
      'cluster-cidr': '',
      'configure-cloud-routes': true,
      'allocate-node-cidrs': false,
      'node-monitor-period': 5_000,
      'route-reconciliation-period': 10_000,
      'node-status-update-frequency': 300_000,
      'concurrent-service-syncs': 1,
      'concurrent-node-syncs': 1,
      'kube-api-qps': 20,
      'kube-api-burst': 30,
    });
    expect(controllers.size).toBe(4);
    expect(clusterCIDRs).toEqual([]);
    expect(cloudConfig).toBe('');
  });

  it('reads --cloud-config', () => {
    const path = join(dir, 'cloud.conf');
    writeFileSync(path, '{"region":"eu-1"}');
    expect(run(['--cloud-provider=devcloud', `--cloud-config=${path}`]).cloudConfig).toBe('{"region":"eu-1"}');
  });

  it.each([
    [[], /^--cloud-provider: required/],
    [['--cloud-provider=x', '--controllers=*,bogus'], /^--controllers: unknown controller "bogus"/],
    [['--cloud-provider=x', '--cluster-cidr=10.0.0.0/40'], /^--cluster-cidr: invalid CIDR/],
    [
      ['--cloud-provider=x', '--cloud-config=/nonexistent/cloud.conf'],
      /^--cloud-config: cannot read ".*" \(no such file\)/,
    ],
    [['--cloud-provider=x', '--plugin=/nonexistent/p.wasm'], /^--plugin: cannot read/],
    [['--cloud-provider=x', '--kube-api-qps=0'], /^--kube-api-qps: must be greater than 0/],
    [
      ['--cloud-provider=x', '--kube-api-qps=50', '--kube-api-burst=10'],
      /^--kube-api-burst: must be >= --kube-api-qps/,
    ],
    [['--cloud-provider=x', '--concurrent-service-syncs=0'], /^--concurrent-service-syncs: must be an integer >= 1/],
    [['--cloud-provider=x', '--secure-port=70000'], /^--secure-port: must be a port number/],
    [['--cloud-provider=x', '--bind-address=localhost'], /^--bind-address: "localhost" is not an IP address/],
    [['--cloud-provider=x', '--node-monitor-period=0s'], /^--node-monitor-period: must be greater than 0/],
    [['--cloud-provider=x', '--leader-elect-renew-deadline=20s'], /^--leader-elect-lease-duration: must be greater/],
    [['--cloud-provider=x', '--leader-elect-retry-period=9s'], /^--leader-elect-renew-deadline: must be greater/],
    [['--cloud-provider=x', '--leader-elect-resource-lock=endpoints'], /only "leases" is supported/],
    [['--cloud-provider=x', '--plugin-sha256=abc'], /^--plugin-sha256: "abc" is not 64 hexadecimal digits/],
    [
      ['--cloud-provider=x', '--plugin-allowed-hosts=api.example:8990,https://api.example/v1'],
      /^--plugin-allowed-hosts: allowed host 'https:\/\/api.example\/v1' must be host or host:port/,
    ],
    [['--cloud-provider=x', '--plugin-allowed-hosts=a,,b'], /^--plugin-allowed-hosts: allowed host '' must be host/],
    [
      ['--cloud-provider=x', '--plugin-allowed-hosts=api:99999'],
      /^--plugin-allowed-hosts: allowed host 'api:99999' is not a valid/,
    ],
    [
      ['--cloud-provider=x', `--plugin-credentials=${badCredentials}`],
      /^--plugin-credentials: .*credentials\[0\] \(api\) needs exactly one of bearerToken, basicAuth, headers, awsSigV4, keystone, vsphere$/,
    ],
    [
      ['--cloud-provider=x', `--plugin-credentials=${unmountedAwsKey}`],
      /^--plugin-credentials: .*credentials\[0\] \(aws\)\.awsSigV4: cannot read .*\/aws\/id: ENOENT$/,
    ],
    [['--cloud-provider=x', '--plugin-pool-size=-1'], /^--plugin-pool-size: must be from 1 to 64, got -1$/],
    [['--cloud-provider=x', '--plugin-pool-size=65'], /^--plugin-pool-size: must be from 1 to 64, got 65$/],
    [['--cloud-provider=x', '--plugin-memory-limit-mb=0'], /^--plugin-memory-limit-mb: must be from 1 to 4096, got 0$/],
    [['--cloud-provider=x', '--plugin-memory-limit-mb=8192'], /^--plugin-memory-limit-mb: must be from 1 to 4096/],
    [
      ['--cloud-provider=x', '--plugin-call-timeout=1h'],
      /^--plugin-call-timeout: must be from 0.001s to 600s, got "1h"/,
    ],
    [
      ['--cloud-provider=x', '--leader-elect-resource-name=CCM_Lease'],
      /^--leader-elect-resource-name: "CCM_Lease" is not/,
    ],
    [['--cloud-provider=x', '--leader-elect-resource-namespace=kube.system'], /^--leader-elect-resource-namespace: /],
    [['--cloud-provider=x', '--tls-cert-file=/etc/hostname'], /^--tls-private-key-file: give both/],
    [
      ['--cloud-provider=x', '--delegated-auth=false'],
      /^--delegated-auth: may be false only with --bind-address=127.0.0.1/,
    ],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it('allows leader-election timing that would be invalid when leader election is off', () => {
    expect(
      run(['--cloud-provider=x', '--leader-elect=false', '--leader-elect-renew-deadline=20s']).flags['leader-elect'],
    ).toBe(false);
  });

  it('answers --help with every flag and --version', () => {
    const help = parseCommandLine(['--help']);
    expect(help.kind).toBe('help');
    if (help.kind === 'help') {
      for (const flag of ['--cloud-provider', '--controllers', '--leader-elect', '--plugin', '--cluster-cidr']) {
        expect(help.text).toContain(flag);
      }
    }
    expect(parseCommandLine(['--version']).kind).toBe('version');
  });

  describe('plugin configuration', () => {
    const wasm = join(dir, 'p.wasm');
    writeFileSync(wasm, 'wasm');

    it('turns --plugin and its flags into a one-provider configuration named after --cloud-provider', () => {
      const cloud = join(dir, 'cloud.json');
      writeFileSync(cloud, '{"region":"r"}');
      const { pluginConfig } = run([
        '--cloud-provider=devcloud',
        `--plugin=${wasm}`,
        `--cloud-config=${cloud}`,
        '--plugin-allowed-hosts=a:1,b',
        '--plugin-call-timeout=3s',
        '--plugin-pool-size=2',
      ]);
      expect(pluginConfig?.defaultProvider).toBe('devcloud');
      expect(pluginConfig?.providers).toEqual([
        expect.objectContaining({
          name: 'devcloud',
          source: { kind: 'file', path: wasm },
          allowedHosts: ['a:1', 'b'],
          cloudConfig: '{"region":"r"}',
          limits: { callTimeoutMs: 3_000, memoryLimitMB: 256, poolSize: 2 },
        }),
      ]);
      expect(run(['--cloud-provider=devcloud']).pluginConfig).toBeUndefined();
    });

    it.each([
      ['--plugin-memory-limit-mb=0', 'limits: {memoryLimitMB: 0}'],
      ['--plugin-pool-size=65', 'limits: {poolSize: 65}'],
      ['--plugin-call-timeout=11m', 'limits: {callTimeout: 11m}'],
      ['--plugin-allowed-hosts=*.example', 'allowedHosts: ["*.example"]'],
      ['--plugin-sha256=sha256:abc', 'sha256: "sha256:abc"'],
      [`--plugin-credentials=${badCredentials}`, `credentials: {file: ${badCredentials}}`],
    ])('refuses %s for the reason the configuration file refuses %s (one rule)', (flag, field) => {
      const path = join(dir, 'rule.yaml');
      writeFileSync(path, `providers:\n  - name: dc\n    source: {file: p.wasm}\n    ${field}\n`);
      const reason = (argv: string[]): string => {
        try {
          parseCommandLine(['--cloud-provider=x', ...argv]);
        } catch (err) {
          if (err instanceof FlagError) return err.message.replace(/^--[-a-z0-9]+: (providers\[0\][^:]*: )?/, '');
        }
        return 'accepted';
      };
      expect(reason([flag])).not.toBe('accepted');
      expect(reason([flag])).toBe(reason([`--plugin-config=${path}`]));
    });

    it('reads --plugin-config, with the plugin flags as default limits', () => {
      const path = join(dir, 'plugins.yaml');
      writeFileSync(path, 'providers:\n  - name: dc\n    source: {file: p.wasm}\n    limits: {poolSize: 4}\n');
      const { pluginConfig } = run([
        '--cloud-provider=devcloud',
        `--plugin-config=${path}`,
        '--plugin-call-timeout=7s',
      ]);
      expect(pluginConfig?.providers[0]?.limits).toEqual({ callTimeoutMs: 7_000, memoryLimitMB: 256, poolSize: 4 });
    });

    it.each([
      [
        'a field error',
        'providers:\n  - name: dc\n    source: {configMap: {namespace: ns, name: x}}\n',
        [],
        /^--plugin-config: providers\[0\]\.source\.configMap\.key: required$/,
      ],
      ['an unreadable file', undefined, [], /^--plugin-config: cannot read ".*missing\.yaml" \(no such file\)$/],
      ['--plugin beside it', 'providers: []\n', ['--plugin=WASM'], /^--plugin: not with --plugin-config/],
      [
        '--cloud-config beside it',
        'providers: []\n',
        ['--cloud-config=WASM'],
        /^--cloud-config: not with --plugin-config/,
      ],
      [
        '--plugin-allowed-hosts beside it',
        'providers: []\n',
        ['--plugin-allowed-hosts=x'],
        /^--plugin-allowed-hosts: not with/,
      ],
    ])('refuses %s, naming --plugin-config or the conflicting flag', (_what, content, extra, message) => {
      const path = join(dir, content === undefined ? 'missing.yaml' : `c-${Math.random().toString(36).slice(2)}.yaml`);
      if (content !== undefined) writeFileSync(path, content);
      const argv = ['--cloud-provider=x', `--plugin-config=${path}`, ...extra.map((a) => a.replace('WASM', wasm))];
      expect(() => parseCommandLine(argv)).toThrow(message);
    });
  });

  describe('files the flags and the plugin configuration name', () => {
    const zeroLink = join(dir, 'zero-link');
    symlinkSync('/dev/zero', zeroLink);
    const directory = join(dir, 'a-directory');
    mkdirSync(directory);
    const wasm = join(dir, 'module.wasm');
    writeFileSync(wasm, Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0));
    const bigWasm = join(dir, 'big.wasm');
    writeFileSync(bigWasm, Buffer.alloc(1048577));
    const config = (provider: string, module = wasm): string => {
      const path = join(dir, `files-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(path, `providers:\n  - name: p\n    source: {file: ${module}}\n${provider}`);
      return `--plugin-config=${path}`;
    };

    // A FIFO, and what exits the process, are run as the real process in test/unit/cli/operator-files.test.ts.
    it.each([
      [['--cloud-config=DIR'], /^--cloud-config: cannot read ".*a-directory" \(not a regular file \(a directory\)\)$/],
      [['--plugin=/dev/zero'], /^--plugin: cannot read "\/dev\/zero" \(not a regular file \(a character device\)\)$/],
      [['--plugin=DIR'], /^--plugin: .*\(not a regular file \(a directory\)\)$/],
      [['--plugin-credentials=ZERO'], /^--plugin-credentials: .*\(not a regular file \(a character device\)\)$/],
      [['--kubeconfig=/dev/zero'], /^--kubeconfig: .*\(not a regular file \(a character device\)\)$/],
      [['--tls-cert-file=DIR', '--tls-private-key-file=/dev/zero'], /^--tls-cert-file: .*a directory/],
      [['--plugin-config=/dev/zero'], /^--plugin-config: cannot read "\/dev\/zero" \(not a regular file/],
      [
        [config('    publicKeyFile: /dev/zero\n')],
        /^--plugin-config: providers\[0\]\.publicKeyFile: .*character device/,
      ],
      [
        [config(`    credentials: {file: ${zeroLink}}\n`)],
        /^--plugin-config: providers\[0\]\.credentials\.file: .*device/,
      ],
      [
        [config(`    cloudConfigFile: ${directory}\n`)],
        /^--plugin-config: providers\[0\]\.cloudConfigFile: .*a directory/,
      ],
      [[config('    limits: {maxModuleMB: 1}\n', bigWasm)], /source\.file: .*larger than 1 MiB/],
    ])('refuses %j, naming the flag or field', (args, message) => {
      const argv = args.map((a) => a.replace('DIR', directory).replace('ZERO', zeroLink));
      expect(() => parseCommandLine(['--cloud-provider=x', ...argv])).toThrow(message);
    });
  });
});

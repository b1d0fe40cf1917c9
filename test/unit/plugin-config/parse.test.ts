// The plugin configuration file: what a valid one turns into, and for every field the error that names its path.
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPluginConfigFile, parsePluginConfig, PluginConfigError } from '../../../host/src/plugin/config/parse.ts';
import { singlePluginConfig } from '../../../host/src/plugin/config/single.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-plugin-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEFAULTS = { callTimeoutMs: 10_000, memoryLimitMB: 256, poolSize: 0 };
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const SIGNATURE = sign(null, Buffer.from('module'), privateKey).toString('base64');
const DIGEST = 'ab'.repeat(32);

writeFileSync(join(dir, 'p.wasm'), 'wasm');
writeFileSync(join(dir, 'key.pem'), PEM);
writeFileSync(join(dir, 'cloud.json'), '{"region":"r1"}');
writeFileSync(join(dir, 'creds.json'), '{"credentials":[]}');
writeFileSync(join(dir, 'bad-creds.json'), '{"credentials":[{"name":"a","hosts":[],"bearerToken":"x"}]}');

function parse(doc: unknown): ReturnType<typeof parsePluginConfig> {
  return parsePluginConfig(typeof doc === 'string' ? doc : JSON.stringify(doc), { baseDir: dir, defaults: DEFAULTS });
}

function errorOf(doc: unknown): string {
  try {
    parse(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(PluginConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the config to be refused');
}

const cm = { configMap: { namespace: 'kube-system', name: 'devcloud-plugin', key: 'devcloud.wasm' } };
const one = (extra: Record<string, unknown> = {}): unknown => ({ providers: [{ name: 'dc', source: cm, ...extra }] });
const two = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  providers: [
    { name: 'dc', source: cm },
    { name: 'internal', source: { file: 'p.wasm' } },
  ],
  defaultProvider: 'dc',
  ...extra,
});

describe('plugin configuration: valid files', () => {
  it('reads a full YAML file with every field, resolving relative paths against the file', () => {
    const yaml = `
defaultProvider: dc
loadBalancerClasses:
  example.com/internal: internal
providers:
  - name: dc
    source:
      configMap: {namespace: kube-system, name: devcloud-plugin, key: devcloud.wasm}
    sha256: "sha256:${DIGEST.toUpperCase()}"
    publicKey: |
${PEM.trim()
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
    signature: ${SIGNATURE}
    allowedHosts: ["devcloud.example:8990", "10.0.0.1"]
    credentials: {file: creds.json}
    limits: {callTimeout: 1m30s, memoryLimitMB: 128, poolSize: 3, poolMinSize: 2, poolIdleTimeout: 5m, maxModuleMB: 96}
    cloudConfigFile: cloud.json
    capabilities: [instancesV2, loadBalancer, routes]
    shadow: {calls: 5}
  - name: internal
    source: {file: p.wasm}
    publicKeyFile: key.pem
    cloudConfig: {url: "http://x", region: r2}
    shadow: true
`;
    const config = parse(yaml);
    expect(config.defaultProvider).toBe('dc');
    expect([...config.loadBalancerClasses]).toEqual([['example.com/internal', 'internal']]);
    const [dc, internal] = config.providers;
    expect(dc).toMatchObject({
      name: 'dc',
      source: { kind: 'configMap', namespace: 'kube-system', name: 'devcloud-plugin', key: 'devcloud.wasm' },
      sha256: DIGEST,
      allowedHosts: ['devcloud.example:8990', '10.0.0.1'],
      credentialsFile: join(dir, 'creds.json'),
      limits: {
        callTimeoutMs: 90_000,
        memoryLimitMB: 128,
        poolSize: 3,
        poolMinSize: 2,
        poolIdleTimeoutMs: 300_000,
        maxModuleMB: 96,
      },
      cloudConfig: '{"region":"r1"}',
      capabilities: ['instancesV2', 'loadBalancer', 'routes'],
      shadow: { calls: 5, seconds: 30 },
    });
    expect(dc?.signature?.signature).toBe(SIGNATURE);
    expect(dc?.signature?.publicKey.asymmetricKeyType).toBe('ed25519');
    expect(internal).toMatchObject({
      source: { kind: 'file', path: join(dir, 'p.wasm') },
      sha256: undefined,
      cloudConfig: '{"url":"http://x","region":"r2"}',
      limits: DEFAULTS,
      capabilities: undefined,
      shadow: { calls: 20, seconds: 30 },
    });
    expect(internal?.signature?.signature).toBeUndefined();
  });

  it('takes JSON too, and makes the only provider the default', () => {
    const config = parse(one());
    expect(config.defaultProvider).toBe('dc');
    expect(config.loadBalancerClasses.size).toBe(0);
    expect(config.providers[0]?.cloudConfig).toBe('');
    expect(config.providers[0]?.allowedHosts).toEqual([]);
  });

  it('takes a default provider without load balancers next to one serving a class', () => {
    const config = parse({
      providers: [
        { name: 'vsphere', source: cm, capabilities: ['instancesV2', 'zones'] },
        { name: 'aws', source: { file: 'p.wasm' }, capabilities: ['loadBalancer'] },
      ],
      defaultProvider: 'vsphere',
      loadBalancerClasses: { 'example.com/aws-nlb': 'aws' },
    });
    expect(config.defaultProvider).toBe('vsphere');
    expect([...config.loadBalancerClasses]).toEqual([['example.com/aws-nlb', 'aws']]);
  });

  it('loads a file from disk and names the file when it cannot', () => {
    const path = join(dir, 'plugins.yaml');
    writeFileSync(path, 'providers:\n  - name: a\n    source: {file: p.wasm}\n');
    expect(loadPluginConfigFile(path, DEFAULTS).providers[0]?.source).toEqual({
      kind: 'file',
      path: join(dir, 'p.wasm'),
    });
    expect(() => loadPluginConfigFile(join(dir, 'none.yaml'), DEFAULTS)).toThrow(
      /cannot read ".*none.yaml" \(no such file\)/,
    );
  });

  it('makes --plugin shorthand for one file provider', () => {
    const config = singlePluginConfig({
      name: 'devcloud',
      plugin: 'plugins/x.wasm',
      sha256: DIGEST.toUpperCase(),
      allowedHosts: ['h:1'],
      credentialsFile: '',
      cloudConfig: '{}',
      limits: DEFAULTS,
    });
    expect(config.defaultProvider).toBe('devcloud');
    expect(config.providers[0]).toMatchObject({
      name: 'devcloud',
      source: { kind: 'file', path: join(process.cwd(), 'plugins/x.wasm') },
      sha256: DIGEST,
      credentialsFile: undefined,
      allowedHosts: ['h:1'],
    });
  });
});

describe('plugin configuration: every error names its field', () => {
  it.each<[string, unknown, string]>([
    ['empty file', '', 'the file is empty'],
    ['not YAML', 'providers: [', 'not YAML or JSON'],
    ['a list at the top', '[1]', 'expected a mapping, got a list'],
    [
      'unknown top-level field',
      { providers: [], extra: 1 },
      'extra: unknown field (known: providers, defaultProvider, loadBalancerClasses)',
    ],
    ['providers missing', {}, 'providers: required'],
    ['providers not a list', { providers: {} }, 'providers: expected a list, got a mapping'],
    ['providers empty', { providers: [] }, 'providers: must list at least one provider'],
    ['provider not a mapping', { providers: ['x'] }, 'providers[0]: expected a mapping, got string "x"'],
    ['unknown provider field', one({ extra: true }), 'providers[0].extra: unknown field'],
    ['name missing', { providers: [{ source: cm }] }, 'providers[0].name: required'],
    [
      'name not a label',
      { providers: [{ name: 'Dev Cloud', source: cm }] },
      'providers[0].name: "Dev Cloud" is not a DNS label',
    ],
    [
      'name not a string',
      { providers: [{ name: 7, source: cm }] },
      'providers[0].name: expected a string, got number 7',
    ],
    [
      'duplicate name',
      {
        providers: [
          { name: 'a', source: cm },
          { name: 'a', source: cm },
        ],
      },
      'providers[1].name: duplicate provider name "a"',
    ],
    ['source missing', { providers: [{ name: 'a' }] }, 'providers[0].source: required'],
    [
      'source empty',
      { providers: [{ name: 'a', source: {} }] },
      'providers[0].source: give exactly one of file or configMap',
    ],
    [
      'source both',
      { providers: [{ name: 'a', source: { file: 'p.wasm', ...cm } }] },
      'providers[0].source: give exactly one of file or configMap',
    ],
    [
      'unknown source kind',
      { providers: [{ name: 'a', source: { url: 'x' } }] },
      'providers[0].source.url: unknown field (known: file, configMap)',
    ],
    [
      'file missing on disk',
      { providers: [{ name: 'a', source: { file: 'nope.wasm' } }] },
      `providers[0].source.file: cannot read "${join(dir, 'nope.wasm')}" (no such file)`,
    ],
    [
      'file empty string',
      { providers: [{ name: 'a', source: { file: '' } }] },
      'providers[0].source.file: must not be empty',
    ],
    [
      'configMap namespace missing',
      { providers: [{ name: 'a', source: { configMap: { name: 'n', key: 'k' } } }] },
      'providers[0].source.configMap.namespace: required',
    ],
    [
      'configMap name missing',
      { providers: [{ name: 'a', source: { configMap: { namespace: 'ns', key: 'k' } } }] },
      'providers[0].source.configMap.name: required',
    ],
    [
      'configMap key missing',
      {
        providers: [
          { name: 'a', source: cm },
          { name: 'b', source: { configMap: { namespace: 'ns', name: 'n' } } },
        ],
        defaultProvider: 'a',
      },
      'providers[1].source.configMap.key: required',
    ],
    [
      'configMap key bad',
      { providers: [{ name: 'a', source: { configMap: { namespace: 'ns', name: 'n', key: 'a/b' } } }] },
      'providers[0].source.configMap.key: "a/b" is not a ConfigMap key',
    ],
    [
      'configMap unknown field',
      { providers: [{ name: 'a', source: { configMap: { namespace: 'ns', name: 'n', key: 'k', optional: true } } }] },
      'providers[0].source.configMap.optional: unknown field',
    ],
    ['sha256 not hex', one({ sha256: 'abc' }), 'providers[0].sha256: "abc" is not 64 hexadecimal digits'],
    [
      'signature without key',
      one({ signature: SIGNATURE }),
      'providers[0].signature: needs publicKey or publicKeyFile',
    ],
    [
      'signature not base64',
      one({ signature: 'not base64!', publicKey: PEM }),
      'providers[0].signature: signature is not base64',
    ],
    [
      'signature wrong length',
      one({ signature: 'AAAA', publicKey: PEM }),
      'providers[0].signature: an Ed25519 signature is 64 bytes, this one is 3',
    ],
    ['publicKey garbage', one({ publicKey: 'hello' }), 'providers[0].publicKey: not a PEM public key'],
    ['publicKey RSA', one({ publicKey: RSA_PEM }), 'providers[0].publicKey: expected an Ed25519 public key, got rsa'],
    [
      'publicKey and file',
      one({ publicKey: PEM, publicKeyFile: 'key.pem' }),
      'providers[0].publicKeyFile: give publicKey or publicKeyFile, not both',
    ],
    ['publicKeyFile missing', one({ publicKeyFile: 'none.pem' }), 'providers[0].publicKeyFile: cannot read'],
    ['allowedHosts not a list', one({ allowedHosts: 'h' }), 'providers[0].allowedHosts: expected a list'],
    [
      'allowedHosts entry with a scheme',
      one({ allowedHosts: ['ok', 'https://x'] }),
      "providers[0].allowedHosts[1]: allowed host 'https://x' must be host or host:port",
    ],
    [
      'credentials not a mapping',
      one({ credentials: 'creds.json' }),
      'providers[0].credentials: expected a mapping, got string',
    ],
    [
      'credentials file missing',
      one({ credentials: { file: 'none.json' } }),
      'providers[0].credentials.file: cannot read',
    ],
    [
      'credentials file invalid',
      one({ credentials: { file: 'bad-creds.json' } }),
      `providers[0].credentials.file: ${join(dir, 'bad-creds.json')}: credentials[0] (a).hosts must be a non-empty list`,
    ],
    [
      'credentials unknown field',
      one({ credentials: { file: 'creds.json', secret: 'x' } }),
      'providers[0].credentials.secret: unknown field',
    ],
    [
      'limits unknown field',
      one({ limits: { cpu: 1 } }),
      'providers[0].limits.cpu: unknown field (known: callTimeout, memoryLimitMB, poolSize, poolMinSize, poolIdleTimeout, maxModuleMB)',
    ],
    [
      'callTimeout not a duration',
      one({ limits: { callTimeout: 'soon' } }),
      'providers[0].limits.callTimeout: invalid duration "soon"',
    ],
    [
      'callTimeout a number',
      one({ limits: { callTimeout: 10 } }),
      'providers[0].limits.callTimeout: expected a duration such as "10s"',
    ],
    ['callTimeout zero', one({ limits: { callTimeout: '0' } }), 'providers[0].limits.callTimeout: must be from'],
    [
      'memoryLimitMB fraction',
      one({ limits: { memoryLimitMB: 1.5 } }),
      'providers[0].limits.memoryLimitMB: expected an integer, got number 1.5',
    ],
    [
      'memoryLimitMB too big',
      one({ limits: { memoryLimitMB: 5000 } }),
      'providers[0].limits.memoryLimitMB: must be from 1 to 4096, got 5000',
    ],
    [
      'maxModuleMB zero',
      one({ limits: { maxModuleMB: 0 } }),
      'providers[0].limits.maxModuleMB: must be from 1 to 1024, got 0',
    ],
    [
      'maxModuleMB a string',
      one({ limits: { maxModuleMB: '64M' } }),
      'providers[0].limits.maxModuleMB: expected an integer',
    ],
    ['poolSize zero', one({ limits: { poolSize: 0 } }), 'providers[0].limits.poolSize: must be from 1 to 64, got 0'],
    [
      'poolMinSize above poolSize',
      one({ limits: { poolSize: 2, poolMinSize: 3 } }),
      'providers[0].limits.poolMinSize: must not be above poolSize (2), got 3',
    ],
    ['poolMinSize zero', one({ limits: { poolMinSize: 0 } }), 'providers[0].limits.poolMinSize: must be from 1 to 64'],
    [
      'poolIdleTimeout below a second',
      one({ limits: { poolIdleTimeout: '10ms' } }),
      'providers[0].limits.poolIdleTimeout: must be from 1s to 86400s',
    ],
    [
      'cloudConfig and file',
      one({ cloudConfig: 'x', cloudConfigFile: 'cloud.json' }),
      'providers[0].cloudConfigFile: give cloudConfig or cloudConfigFile, not both',
    ],
    [
      'cloudConfig a number',
      one({ cloudConfig: 3 }),
      'providers[0].cloudConfig: expected a string (the cloud config text) or a mapping',
    ],
    ['cloudConfigFile missing', one({ cloudConfigFile: 'none.json' }), 'providers[0].cloudConfigFile: cannot read'],
    [
      'capabilities unknown',
      one({ capabilities: ['instancesV2', 'storage'] }),
      'providers[0].capabilities[1]: unknown capability "storage"',
    ],
    [
      'capabilities twice',
      one({ capabilities: ['routes', 'routes'] }),
      'providers[0].capabilities[1]: "routes" is listed twice',
    ],
    ['capabilities empty', one({ capabilities: [] }), 'providers[0].capabilities: must list at least one capability'],
    ['shadow empty mapping', one({ shadow: {} }), 'providers[0].shadow: give calls, seconds, or both'],
    ['shadow calls zero', one({ shadow: { calls: 0 } }), 'providers[0].shadow.calls: must be from 1 to 10000'],
    ['shadow a string', one({ shadow: 'yes' }), 'providers[0].shadow: expected a mapping, got string "yes"'],
    [
      'defaultProvider needed',
      { providers: two().providers },
      'defaultProvider: required when several providers are listed',
    ],
    ['defaultProvider unknown', two({ defaultProvider: 'x' }), 'defaultProvider: no provider is named "x"'],
    [
      'classes not a mapping',
      two({ loadBalancerClasses: ['a'] }),
      'loadBalancerClasses: expected a mapping, got a list',
    ],
    [
      'class to unknown provider',
      two({ loadBalancerClasses: { 'example.com/a': 'nobody' } }),
      'loadBalancerClasses.example.com/a: no provider is named "nobody"',
    ],
    [
      'class name invalid',
      two({ loadBalancerClasses: { 'Not A Class': 'internal' } }),
      'loadBalancerClasses.Not A Class: a loadBalancerClass must be',
    ],
    [
      'class provider without loadBalancer',
      {
        providers: [
          { name: 'dc', source: cm },
          { name: 'internal', source: { file: 'p.wasm' }, capabilities: ['instancesV2'] },
        ],
        defaultProvider: 'dc',
        loadBalancerClasses: { 'example.com/a': 'internal' },
      },
      'loadBalancerClasses.example.com/a: provider "internal" does not serve loadBalancer',
    ],
  ])('%s', (_what, doc, message) => {
    expect(errorOf(doc)).toContain(message);
  });

  it('starts every message with the path, so the CLI can prefix the flag', () => {
    const err = (() => {
      try {
        parse({
          providers: [
            { name: 'a', source: cm },
            { name: 'b', source: { configMap: { namespace: 'n', name: 'x' } } },
          ],
          defaultProvider: 'a',
        });
      } catch (e) {
        return e as PluginConfigError;
      }
      return undefined;
    })();
    expect(err?.path).toBe('providers[1].source.configMap.key');
    expect(err?.message).toBe('providers[1].source.configMap.key: required');
  });
});

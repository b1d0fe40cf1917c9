// The values refusals.test.ts renders: each bad value the CCM would refuse at start (so a release with it would
// install and crash-loop), with the message `helm template` must fail with; and good values near each check's edge,
// which the chart and the CCM both accept. Here the module and the plugins, as functions of the fixtures (modules,
// keys, signatures); the command line in refusals-flags.cases.ts.

export interface Fixtures {
  /** The devcloud plugin build:plugins makes. */
  module: string;
  /** Text, not Wasm. */
  text: string;
  /** A Wasm component (binary format version 0x0d), not a module. */
  component: string;
  /** The devcloud module, gzipped. */
  gzip: string;
  /** The sha256 of `module`, lower-case hex. */
  sha256: string;
  /** An Ed25519 public key (PEM) and the base64 signature of `module` by its private key. */
  publicKey: string;
  signatureFile: string;
  signature: string;
  /** An RSA public key (PEM). */
  rsaPublicKey: string;
}

export interface ValuesCase {
  what: string;
  /** --set-file; plugin.module defaults to the devcloud module. */
  files?: Record<string, string>;
  /** --set-json. */
  values: Record<string, unknown>;
}

export interface BadCase extends ValuesCase {
  /** What helm's error must contain: the value's path, and what is wrong. */
  message: string;
}

const devcloud = { name: 'devcloud', source: { module: true } };
const other = { name: 'other', source: { file: '/usr/lib/wasm-ccm/plugins/other.wasm' } };
const provider = (fields: Record<string, unknown>) => ({ 'plugins.providers': [{ ...devcloud, ...fields }] });
const entry = (fields: Record<string, unknown>) => ({ name: 'api', hosts: ['api.example'], ...fields });
const credentials = (...entries: unknown[]) => provider({ credentials: { entries } });
const twoProviders = (classes: Record<string, string>, capabilities?: Record<string, string[]>) => ({
  'plugins.providers': [devcloud, other].map((p) => ({ ...p, capabilities: capabilities?.[p.name] })),
  'plugins.defaultProvider': 'devcloud',
  'plugins.loadBalancerClasses': classes,
});

export function badCases(f: Fixtures): BadCase[] {
  const module = (path: string) => ({ 'plugin.module': path });
  return [
    // The module and its pin and signature.
    {
      what: 'a module that is not Wasm',
      files: module(f.text),
      values: {},
      message: 'plugin.module: the file given is not a WebAssembly module',
    },
    {
      what: 'a Wasm component, not a module',
      files: module(f.component),
      values: {},
      message: 'plugin.module: the file given is not a WebAssembly module',
    },
    {
      what: 'a .gz key without gzip magic',
      values: { 'plugin.key': 'provider.wasm.gz' },
      message:
        'plugin.module: plugin.key "provider.wasm.gz" ends in .gz, but the module does not start with the gzip magic 1f 8b',
    },
    {
      what: 'a sha256 pin of another module',
      values: provider({ sha256: 'a'.repeat(64) }),
      message: `plugins.providers[0].sha256: the pin ${'a'.repeat(64)} does not match plugin.module, whose sha256 is ${f.sha256}`,
    },
    {
      what: 'a signature that is not base64 Ed25519',
      files: { 'plugin.module': f.module, 'plugin.signature': f.text },
      values: {},
      message: 'plugin.signature: not a base64 Ed25519 signature',
    },
    {
      what: 'a public key and no signature',
      values: provider({ publicKey: f.publicKey }),
      message: 'plugins.providers[0].publicKey: the module must be signed by this key, but plugin.signature is empty',
    },
    {
      what: 'an RSA public key',
      files: { 'plugin.module': f.module, 'plugin.signature': f.signatureFile },
      values: provider({ publicKey: f.rsaPublicKey }),
      message: 'plugins.providers[0].publicKey: not an Ed25519 public key in PEM',
    },
    {
      what: 'a fixed signature without a key',
      values: provider({ signature: f.signature }),
      message: 'plugins.providers[0].signature: there is no publicKey or publicKeyFile',
    },
    {
      what: 'publicKey and publicKeyFile',
      values: provider({ publicKey: f.publicKey, publicKeyFile: '/k.pem' }),
      message: 'plugins.providers[0]: give publicKey or publicKeyFile, not both',
    },
    {
      what: 'cloudConfig and cloudConfigFile',
      values: provider({ cloudConfig: 'x', cloudConfigFile: '/c' }),
      message: 'plugins.providers[0]: give cloudConfig or cloudConfigFile, not both',
    },
    // Providers, references between them, hosts and credentials.
    {
      what: 'two providers of one name',
      values: { 'plugins.providers': [devcloud, devcloud] },
      message: 'plugins.providers[1].name: "devcloud" is already the name of plugins.providers[0]',
    },
    {
      what: 'several providers and no default',
      values: { 'plugins.providers': [devcloud, other] },
      message: 'plugins.defaultProvider: required with several providers',
    },
    {
      what: 'a default provider that does not exist',
      values: { 'plugins.defaultProvider': 'nope' },
      message: 'plugins.defaultProvider: no provider is named "nope": write one of devcloud',
    },
    {
      what: 'a class routed to no provider',
      values: { 'plugins.loadBalancerClasses': { 'example.com/lb': 'nope' } },
      message: 'plugins.loadBalancerClasses.example.com/lb: no provider is named "nope"',
    },
    {
      what: 'a class name that is not label-style',
      values: { 'plugins.loadBalancerClasses': { 'Internal LB': 'devcloud' } },
      message: 'plugins.loadBalancerClasses: "Internal LB" is not a loadBalancerClass',
    },
    {
      what: 'a class routed to a provider without loadBalancer',
      values: twoProviders({ 'example.com/lb': 'other' }, { other: ['routes'] }),
      message: 'plugins.loadBalancerClasses.example.com/lb: provider "other" does not serve loadBalancer',
    },
    {
      what: 'a default without loadBalancer while classes are routed',
      values: twoProviders({ 'example.com/lb': 'other' }, { devcloud: ['instancesV2'] }),
      message: 'plugins.defaultProvider: provider "devcloud" must serve loadBalancer',
    },
    {
      what: 'an allowed host with a scheme',
      values: provider({ allowedHosts: ['https://api.example'] }),
      message: "at '/plugins/providers/0/allowedHosts/0': 'https://api.example' does not match pattern",
    },
    {
      what: 'an allowed host with port 70000',
      values: provider({ allowedHosts: ['api.example:70000'] }),
      message: 'plugins.providers[0].allowedHosts[0]: "api.example:70000" has the port 70000',
    },
    {
      what: 'a credential without a secret',
      values: credentials(entry({})),
      message: "at '/plugins/providers/0/credentials/entries/0': 'oneOf' failed",
    },
    {
      what: 'an insecure credential for a remote host',
      values: credentials(entry({ bearerToken: 't', insecure: true })),
      message: 'plugins.providers[0].credentials.entries[0].insecure: "api.example" is not a loopback address',
    },
    {
      what: 'two credentials of one name',
      values: credentials(entry({ bearerToken: 't' }), entry({ bearerToken: 'u' })),
      message: 'plugins.providers[0].credentials.entries[1].name: "api" is already the name of entries[0]',
    },
    {
      what: 'a header name with a space',
      values: credentials(entry({ headers: { 'X Key': 'v' } })),
      message: 'plugins.providers[0].credentials.entries[0].headers: "X Key" is not an HTTP header name',
    },
    {
      what: 'a ConfigMap name that is not one',
      values: provider({ source: { configMap: { name: 'My_Plugin', key: 'p.wasm' } } }),
      message: "at '/plugins/providers/0/source/configMap/name': 'My_Plugin' does not match pattern",
    },
    {
      what: 'poolMinSize above poolSize',
      values: provider({ limits: { poolSize: 2, poolMinSize: 3 } }),
      message: "plugins.providers[0].limits.poolMinSize: 3 is above the provider's poolSize (2)",
    },
    {
      what: 'poolIdleTimeout under 1s',
      values: provider({ limits: { poolIdleTimeout: '500ms' } }),
      message: 'plugins.providers[0].limits.poolIdleTimeout: "500ms" is out of range: write a duration from 1s to 24h',
    },
    {
      what: 'a provider callTimeout over 10m',
      values: provider({ limits: { callTimeout: '1h' } }),
      message: 'plugins.providers[0].limits.callTimeout: "1h" is out of range: write a duration from 1ms to 10m',
    },
  ];
}

export function goodCases(f: Fixtures): ValuesCase[] {
  const signed = { 'plugin.module': f.module, 'plugin.signature': f.signatureFile };
  return [
    {
      what: 'a gzip module under a .gz key, pinned to the inflated module',
      files: { 'plugin.module': f.gzip },
      values: { 'plugin.key': 'provider.wasm.gz', ...provider({ sha256: f.sha256 }) },
    },
    {
      what: 'a pin with the sha256: prefix, in upper case',
      values: provider({ sha256: `sha256:${f.sha256.toUpperCase()}` }),
    },
    { what: 'a signed module and its key', files: signed, values: provider({ publicKey: f.publicKey }) },
    { what: 'a fixed signature and its key', values: provider({ publicKey: f.publicKey, signature: f.signature }) },
    {
      what: 'a class routed to a second provider',
      values: twoProviders({ 'example.com/internal': 'other' }, { other: ['loadBalancer'] }),
    },
    {
      what: 'loopback credentials over http, and headers',
      values: credentials(
        entry({ hosts: ['127.0.0.1:8080', '[::1]:8080', 'localhost'], bearerToken: 't', insecure: true }),
        entry({ name: 'keys', headers: { 'X-Api-Key': 'k' } }),
      ),
    },
  ];
}

// The files of a new provider project besides its AssemblyScript: the manifest with build/test/conformance/dev
// scripts, the asc config, a conformance fixture with its cloud config, credentials and devcloud instances, and the
// README.
import type { Versions } from './versions.ts';

/** The release tarballs a project installs from (--packages): `file:` specs relative to the project. */
export interface Tarballs {
  sdk: string;
  ccm: string;
  devcloud: string;
}

export interface ProjectOptions {
  name: string;
  capabilities: readonly string[];
  versions: Versions;
  /** Where the wasm-ccm packages come from: the registry (versions) or these tarballs (paths relative to the project). */
  tarballs?: Tarballs;
  /** host:port of the cloud API the conformance files point at. */
  cloudHost: string;
}

/** The token of the devcloud the scripts start, and of the credentials file as written. */
export const DEVCLOUD_TOKEN = 'devcloud-token';
export const DEVCLOUD_INSTANCES = 'conformance/devcloud-instances.json';

/** The project's scripts. On a loopback cloud host, conformance and dev run devcloud there while they run. */
export function projectScripts(o: ProjectOptions): Record<string, string> {
  const wasm = `build/${o.name}.wasm`;
  const pluginFlags =
    `--plugin=${wasm} --fixture=conformance/fixture.yaml --cloud-config=conformance/cloud.json ` +
    `--credentials=conformance/credentials.json --allowed-hosts=${o.cloudHost}`;
  const kit = `wasm-ccm plugin test ${pluginFlags}`;
  const cluster = `wasm-ccm dev ${pluginFlags} --watch`;
  const withDevcloud = (command: string): string => {
    if (!isLoopback(o.cloudHost)) return command;
    const { hostname, port } = new URL(cloudUrl(o.cloudHost));
    return (
      `devcloud --host=${hostname.replace(/^\[|\]$/g, '')} --port=${port || '80'} --token=${DEVCLOUD_TOKEN} ` +
      `--instances=${DEVCLOUD_INSTANCES} -- ${command}`
    );
  };
  return {
    build: `asc --config asconfig.json && wasm-ccm-check-imports ${wasm}`,
    test: "npm run build && node --test 'test/**/*.test.js'",
    kit,
    conformance: `npm run build && ${withDevcloud(kit)}`,
    cluster: `npm run build && ${cluster}`,
    dev: `npm run build && ${withDevcloud(cluster)}`,
  };
}

export function packageJson(o: ProjectOptions): string {
  const spec = (tarball: keyof Tarballs, version: string): string =>
    o.tarballs ? `file:${o.tarballs[tarball]}` : version;
  const pkg = {
    name: `${o.name}-provider`,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: projectScripts(o),
    devDependencies: {
      '@extism/as-pdk': o.versions.asPdk,
      '@wasm-ccm/devcloud': spec('devcloud', o.versions.devcloud),
      '@wasm-ccm/plugin-sdk': spec('sdk', o.versions.sdk),
      assemblyscript: o.versions.assemblyscript,
      'wasm-ccm': spec('ccm', o.versions.ccm),
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** What devcloud holds for the fixture as written: the instances its nodes name. */
export function devcloudInstancesJson(): string {
  const instances = [{ id: 'conformance-a', name: 'node-a' }, { name: 'node-b' }, { name: 'node-c', state: 'stopped' }];
  return `${JSON.stringify({ instances }, null, 2)}\n`;
}

export function asconfigJson(name: string): string {
  const config = {
    extends: '@wasm-ccm/plugin-sdk/asconfig.json',
    entries: ['assembly/index.ts'],
    options: { outFile: `build/${name}.wasm` },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** What the cloud must hold for `npm run conformance` (see the README's "Conformance"). */
export function fixtureYaml(name: string, cloudHost: string): string {
  return [
    '# What the cloud holds for the kit (wasm-ccm plugin test): conformance-a (id) named node-a and node-b running,',
    '# node-c stopped; ghost must not exist. devcloud-instances.json makes them in the devcloud `npm run conformance`',
    '# starts; in a cloud of your own, create them first. `wasm-ccm dev` registers a Node for each running one.',
    'clusterName: conformance',
    'nodes:',
    `  running: [{ name: node-a, providerID: '${name}://conformance-a' }, { name: node-b }]`,
    '  stopped: [{ name: node-c }]',
    `  missing: [{ name: ghost }, { name: old, providerID: '${name}://gone' }]`,
    'nodeSets: { initial: [node-a, node-b], updated: [node-a] }',
    'route: { destinationCIDR: 10.250.0.0/24, targetNode: node-a }',
    '# What the load balancer sends traffic to, read by a GET the host makes with your credentials: after ensure and',
    '# update the backends must be exactly the nodes sent (list the ones your provider filters out under',
    '# nodeSets.filtered, with the reason). Point it at your API.',
    `backendProbe: { url: '${cloudUrl(cloudHost)}/v1/load-balancers/{lb}', path: backendInstanceIds, identity: instanceID }`,
    '# The load balancers in your cloud, listed by another GET: a repeated ensure must add none, delete must leave none.',
    '# Without a probe the verdict is INCOMPLETE; where your API offers none, say why: { unavailable: <reason> }.',
    `loadBalancerProbe: { url: '${cloudUrl(cloudHost)}/v1/load-balancers?tag=cluster=conformance', path: 'items[].name' }`,
    '',
  ].join('\n');
}

// A cloud on this machine (a fake one to develop against) speaks plain http; any other, https: the host sends a
// credential over TLS only, unless its entry says "insecure" for a loopback host.
const LOOPBACK_HOST = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)(?::\d+)?$/;
export const isLoopback = (host: string): boolean => LOOPBACK_HOST.test(host);

export function cloudUrl(host: string): string {
  return `${isLoopback(host) ? 'http' : 'https'}://${host}`;
}

export function cloudJson(host: string): string {
  return `${JSON.stringify({ url: cloudUrl(host), region: 'dc-east-1', zone: 'dc-east-1a' }, null, 2)}\n`;
}

export function credentialsJson(host: string): string {
  const token = isLoopback(host) ? DEVCLOUD_TOKEN : 'replace-with-your-api-token';
  const entry = { name: 'cloud-api', hosts: [host], bearerToken: token };
  const file = { credentials: [isLoopback(host) ? { ...entry, insecure: true } : entry] };
  return `${JSON.stringify(file, null, 2)}\n`;
}

export const GITIGNORE = 'node_modules/\nbuild/\n';

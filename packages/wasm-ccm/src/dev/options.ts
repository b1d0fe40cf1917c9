// `wasm-ccm dev` flags: the plugin and its conformance files, as `wasm-ccm plugin test` takes them, and --watch.
import { parseArgs } from 'node:util';
import { allowedHostList, PROVIDER_FLAG_OPTIONS } from '../../../../host/src/cli/provider-flags.ts';

export const DEV_USAGE = `Usage: wasm-ccm dev --plugin=<file.wasm> --fixture=<file.json|yaml> [options]

Starts a local cluster (kube-apiserver v1.36 + etcd, kwok for kubelets), registers a Node for each running node of
the fixture, applies wasm-ccm's RBAC manifests, ships the module in a ConfigMap and runs wasm-ccm with it. Prints
the kubeconfig and what to try; Ctrl-C (SIGINT or SIGTERM) stops every process and removes every file it made.

  --plugin=FILE         the provider plugin (.wasm)
  --fixture=FILE        the conformance fixture (wasm-ccm plugin test --help): its clusterName, and its running
                        nodes (name, providerID, labels), registered as Nodes the plugin initializes
  --cloud-config=FILE   the cloud config the plugin is initialized with (default: none)
  --credentials=FILE    credentials the host attaches to the plugin's HTTP requests (host format)
  --allowed-hosts=LIST  hosts the plugin may reach, host or host:port, comma-separated (repeatable)
  --watch               when FILE changes, put the new module into the ConfigMap: wasm-ccm swaps it in
  -h, --help            this text

The control plane's binaries are built once with Go >= 1.26 into ~/.cache/wasm-ccm (WASM_CCM_CACHE), by the
scripts/build-controlplane.sh this package ships; a later run finds them there.
Exit status: 0 after Ctrl-C, 1 when the cluster could not start, 2 usage or input error.`;

export class DevUsageError extends Error {
  override name = 'DevUsageError';
}

export interface DevOptions {
  plugin: string;
  fixture: string;
  cloudConfig: string | undefined;
  credentials: string | undefined;
  allowedHosts: string[];
  watch: boolean;
}

/** The options, or 'help'; throws DevUsageError naming the flag at fault. */
export function parseDevArgs(args: readonly string[]): DevOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        ...PROVIDER_FLAG_OPTIONS,
        watch: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new DevUsageError((err as Error).message.split('. ')[0] ?? String(err));
  }
  if (values.help) return 'help';
  if (!values.plugin) throw new DevUsageError('--plugin is required');
  if (!values.fixture) throw new DevUsageError('--fixture is required');
  return {
    plugin: values.plugin,
    fixture: values.fixture,
    cloudConfig: values['cloud-config'],
    credentials: values.credentials,
    allowedHosts: allowedHostList(values['allowed-hosts']),
    watch: values.watch ?? false,
  };
}

// The new project's README: the first run against devcloud, the local cluster, pointing the project at the vendor's
// own cloud, and shipping the module in a ConfigMap. Every link is an absolute URL or a file of the project.
import { isLoopback } from './project-files.ts';

function firstRun(name: string, cloudHost: string): string {
  if (!isLoopback(cloudHost)) {
    return `\`npm run conformance\` builds the module and runs \`wasm-ccm plugin test\` against the cloud at ${cloudHost}
(see "Your cloud" below for what it must hold first).`;
  }
  return `\`npm run conformance\` builds the module, starts devcloud (\`@wasm-ccm/devcloud\`, wasm-ccm's simulated IaaS, the
cloud \`assembly/\` speaks) on ${cloudHost} holding the instances of \`conformance/devcloud-instances.json\`, runs
\`wasm-ccm plugin test\` against it and stops it: the first run passes with no cloud of your own.

\`npm run dev\` does the same for a cluster: devcloud, then \`wasm-ccm dev\`, which starts a local kube-apiserver, etcd
and kwok, registers a Node for each running node of \`conformance/fixture.yaml\`, applies wasm-ccm's RBAC, puts
\`build/${name}.wasm\` into a ConfigMap and runs wasm-ccm with it. It prints the kubeconfig and kubectl commands to
try; with \`--watch\` (as the script runs it) \`npm run build\` in another terminal swaps the rebuilt module in. Ctrl-C
stops every process and removes every file it made. The first run builds kube-apiserver, etcd and kwok with Go >= 1.26
into \`~/.cache/wasm-ccm\` (minutes, once).`;
}

export function readmeSource(name: string, capabilities: readonly string[], cloudHost: string): string {
  return `# ${name} provider for wasm-ccm

A cloud provider for wasm-ccm (a Kubernetes cloud-controller-manager with sandboxed provider plugins), written in
AssemblyScript with \`@wasm-ccm/plugin-sdk\`. Capabilities: ${capabilities.join(', ')}. Needs Node.js 24 or later.

The API calls in \`assembly/\` are those of devcloud, wasm-ccm's simulated cloud, as a worked example: replace the
paths and fields in \`assembly/api.ts\` and the capability modules with your cloud's, and keep the rules written in
their comments (a load balancer belongs to the Service UID it is tagged with; a node without an instance is
\`InstanceNotFound\`). devcloud's API is described in \`node_modules/@wasm-ccm/devcloud/README.md\`; writing a
provider, in \`node_modules/@wasm-ccm/plugin-sdk/README.md\`.

## Build and test

\`\`\`sh
npm install
npm run build        # asc -> build/${name}.wasm, then the import check (wasm-ccm-check-imports)
npm test             # build, then test/*.test.js with node:test under wasm-ccm/testing
npm run conformance  # build, then the conformance kit (wasm-ccm plugin test)
npm run dev          # build, then the provider in a local cluster (wasm-ccm dev --watch)
\`\`\`

${firstRun(name, cloudHost)}

## Your cloud

\`npm run kit\` and \`npm run cluster\` are the same two runs without devcloud, against the cloud the \`conformance/\`
files name. To point them at yours:

1. \`conformance/cloud.json\`: your API's URL (the cloud config \`assembly/config.ts\` reads);
   \`conformance/credentials.json\`: its host and your API token (the host attaches it; the plugin never sees it).
2. \`package.json\`: the \`--allowed-hosts\` of the \`kit\` and \`cluster\` scripts, your API's host.
3. \`conformance/fixture.yaml\`: the probe URLs (\`backendProbe\`, \`loadBalancerProbe\`) at your API, and create in your
   cloud what it lists: instances \`node-a\` (id \`conformance-a\`) and \`node-b\` running, \`node-c\` stopped.
4. \`npm run build && npm run kit\`, then \`npm run cluster\` to see it initialize Nodes.

A provider that filters a Service's backends by a node label is not re-synced when that label changes on a Node: as
upstream's service controller does, wasm-ccm re-syncs load balancers when a Node's
\`node.kubernetes.io/exclude-from-external-load-balancers\` label or providerID changes, not on other labels.

## Ship it

Put the module into a ConfigMap and point wasm-ccm at it (no image to build):

\`\`\`sh
kubectl -n kube-system create configmap ${name}-plugin --from-file=${name}.wasm=build/${name}.wasm
\`\`\`

\`\`\`yaml
# --plugin-config of wasm-ccm
providers:
  - name: ${name}
    source: { configMap: { namespace: kube-system, name: ${name}-plugin, key: ${name}.wasm } }
    allowedHosts: ['${cloudHost}']
    credentials: { file: /etc/${name}/credentials.json }
    cloudConfigFile: /etc/${name}/cloud.json
\`\`\`

Run wasm-ccm with \`--cloud-provider=${name} --plugin-config=<that file>\`; \`node_modules/wasm-ccm/manifests/\` holds
the RBAC, Deployment and ConfigMap an operator applies (\`node_modules/wasm-ccm/README.md\`). A new version is one
\`kubectl create configmap ... --dry-run=client -o yaml | kubectl apply -f -\` away: wasm-ccm swaps it in without a
restart.

A ConfigMap holds at most 1 MiB. A larger module ships gzipped, under a \`.gz\` key; wasm-ccm decompresses it (up to
\`limits.maxModuleMB\`, default 64) before checking it, and a pin or signature is over the decompressed module:

\`\`\`sh
gzip -9 -k build/${name}.wasm
kubectl -n kube-system create configmap ${name}-plugin --from-file=${name}.wasm.gz=build/${name}.wasm.gz
# and key: ${name}.wasm.gz in the source above
\`\`\`
`;
}

// The new project's README: how to build, test, run the conformance kit and ship the module in a ConfigMap.

export function readmeSource(name: string, capabilities: readonly string[], cloudHost: string): string {
  return `# ${name} provider for wasm-ccm

A cloud provider for wasm-ccm (a Kubernetes cloud-controller-manager with sandboxed provider plugins), written in
AssemblyScript with \`@wasm-ccm/plugin-sdk\`. Capabilities: ${capabilities.join(', ')}.

The API calls in \`assembly/\` are those of devcloud, wasm-ccm's simulated cloud, as a worked example: replace the
paths and fields in \`assembly/api.ts\` and the capability modules with your cloud's, and keep the rules written in
their comments (a load balancer belongs to the Service UID it is tagged with; a node without an instance is
\`InstanceNotFound\`).

## Build and test

\`\`\`sh
npm install
npm run build        # asc -> build/${name}.wasm, then the import check (wasm-ccm-check-imports)
npm test             # build, then test/*.test.js with node:test under wasm-ccm/testing
\`\`\`

## Conformance

\`npm run conformance\` runs \`wasm-ccm plugin test\` against the cloud in \`conformance/cloud.json\` (${cloudHost}),
with the credentials the host attaches from \`conformance/credentials.json\` (put a real token there; the plugin never
sees it). First create what \`conformance/fixture.yaml\` lists in the cloud: instances \`node-a\` (id
\`conformance-a\`) and \`node-b\` running, \`node-c\` stopped.

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

Run wasm-ccm with \`--cloud-provider=${name} --plugin-config=<that file>\`. A new version is one
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

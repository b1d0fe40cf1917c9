// The new project's unit test (node:test, plain JavaScript): the built module under wasm-ccm/testing against a small
// stand-in for the cloud API on a loopback port, one case per capability.

const CASES: Readonly<Record<string, string>> = {
  instancesV2: `
test('instanceMetadata finds a node by name and answers its providerID and zone', async () => {
  const meta = await plugin.call('instanceMetadata', { node: testNode({ name: 'node-1' }) });
  assert.equal(meta.providerID, \`\${NAME}://i-1\`);
  assert.equal(meta.zone, 'zone-a');
  assert.deepEqual(meta.nodeAddresses, [{ type: 'InternalIP', address: '10.0.0.1' }]);
});

test('a node without an instance is InstanceNotFound, and does not exist', async () => {
  await assert.rejects(plugin.call('instanceMetadata', { node: testNode({ name: 'ghost' }) }), { code: 'InstanceNotFound' });
  assert.deepEqual(await plugin.call('instanceExists', { node: testNode({ name: 'ghost' }) }), { exists: false });
});
`,
  loadBalancer: `
test('a Service never ensured has no load balancer', async () => {
  const service = testService({ name: 'web' });
  const got = await plugin.call('getLoadBalancer', { clusterName: 'test', service });
  assert.equal(got.exists, false);
  const { name } = await plugin.call('getLoadBalancerName', { clusterName: 'test', service });
  assert.equal(name, \`a\${service.uid.replaceAll('-', '')}\`.slice(0, 32));
});
`,
  routes: `
test('listRoutes answers the routes of the cluster', async () => {
  assert.deepEqual(await plugin.call('listRoutes', { clusterName: 'test' }), { routes: [] });
});
`,
  zones: `
test('the zone of a node is the zone of its instance', async () => {
  const zone = await plugin.call('getZoneByNodeName', { nodeName: 'node-1' });
  assert.deepEqual(zone, { failureDomain: 'zone-a', region: 'region-1' });
});
`,
};

export function unitTestSource(name: string, capabilities: readonly string[]): string {
  return `// Unit tests of the built module (npm test builds it first) under wasm-ccm's own plugin runtime: the CCM's sandbox,
// import policy and memory cap, and every answer checked against the ABI.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { loadTestPlugin, testNode, testService } from 'wasm-ccm/testing';

const NAME = '${name}';

// A stand-in for the cloud API: one running instance, i-1 named node-1; everything else is not found.
const INSTANCE = {
  id: 'i-1',
  name: 'node-1',
  type: 'small',
  zone: 'zone-a',
  region: 'region-1',
  state: 'running',
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
};

function fakeCloud(req, res) {
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const path = new URL(req.url, 'http://cloud').pathname;
  if (path === '/v1/instances/i-1' || path === '/v1/instances/by-name/node-1') return send(200, INSTANCE);
  if (path === '/v1/routes') return send(200, { items: [], nextPageToken: null });
  send(404, { error: { code: 'not_found', message: \`\${path} not found\` } });
}

let server;
let plugin;

before(async () => {
  server = createServer(fakeCloud).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const host = \`127.0.0.1:\${server.address().port}\`;
  plugin = await loadTestPlugin(\`build/\${NAME}.wasm\`, {
    cloudConfig: JSON.stringify({ url: \`http://\${host}\`, region: 'region-1', zone: 'zone-a' }),
    allowedHosts: [host],
  });
});

after(async () => {
  await plugin?.close();
  server?.close();
});

test('describes itself with the declared capabilities', () => {
  assert.equal(plugin.description.providerName, NAME);
  assert.deepEqual(plugin.description.capabilities, ${JSON.stringify(capabilities)});
});
${capabilities.map((c) => CASES[c] ?? '').join('')}
test('no answer broke the ABI', () => {
  assert.deepEqual(plugin.violations, []);
});
`;
}

// A devcloud in a worker thread of the benchmark's own process (zero latency, no faults), seeded with `instances`
// running instances. It runs off the main thread so its CPU time can be told apart from the host's: the thread is
// named 'devcloud' (see threadCpuNs).
import { parentPort, workerData } from 'node:worker_threads';
import { startDevcloud } from '../../devcloud/src/index.ts';

export interface DevcloudThreadData {
  instances: number;
  token: string;
}

export interface DevcloudThreadReady {
  url: string;
  instances: Array<{ id: string; name: string; addresses: Array<{ type: string; address: string }> }>;
}

const port = parentPort;
if (port === null) throw new Error('devcloud-thread.ts must run in a worker thread');
const data = workerData as DevcloudThreadData;
const cloud = await startDevcloud({ token: data.token });
const instances: DevcloudThreadReady['instances'] = [];
for (let i = 0; i < data.instances; i++) {
  const inst = cloud.addInstance({ name: `node-${String(i).padStart(4, '0')}` });
  instances.push({ id: inst.id, name: inst.name, addresses: inst.addresses });
}
port.postMessage({ url: cloud.url, instances } satisfies DevcloudThreadReady);
port.on('message', (message: unknown) => {
  if (message === 'stop') void cloud.stop().then(() => port.close());
});

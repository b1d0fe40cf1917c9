// A devcloud in a worker thread of the benchmark's own process (zero latency, no faults), seeded with `instances`
// running instances. It runs off the main thread so its CPU time can be told apart from the host's: the thread is
// named 'devcloud' (see threadCpuNs). With `sigv4`, a front that takes SigV4-signed requests stands before it
// (sigv4-front.ts), in the same thread.
import { parentPort, workerData } from 'node:worker_threads';
import { startDevcloud } from '../../devcloud/src/index.ts';
import type { AwsAccessKey, SigV4Scope } from '../../host/src/plugin/broker/sigv4-signer.ts';
import { type SigV4Front, startSigV4Front } from './sigv4-front.ts';

export interface DevcloudThreadData {
  instances: number;
  token: string;
  sigv4?: { key: AwsAccessKey; scope: SigV4Scope };
}

export interface DevcloudThreadReady {
  url: string;
  /** The SigV4 front's URL (with `sigv4`). */
  signedUrl?: string;
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
const front: SigV4Front | undefined = data.sigv4 && (await startSigV4Front(cloud, data.sigv4.key, data.sigv4.scope));
port.postMessage({
  url: cloud.url,
  ...(front ? { signedUrl: front.url } : {}),
  instances,
} satisfies DevcloudThreadReady);
port.on('message', (message: unknown) => {
  if (message === 'stop') void Promise.all([front?.close(), cloud.stop()]).then(() => port.close());
});

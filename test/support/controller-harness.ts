// Runs one controller in the test process against the real apiserver with a FakeProvider: the controller's
// logic, the apiserver's real behaviour (finalizers, subresources, conflicts), no plugin or cloud in between.
import { Registry } from 'prom-client';
import { type SharedInformers, sharedInformers } from '../../host/src/app/informers.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { EventRecorder, kubeEventSink } from '../../host/src/kube/events/recorder.ts';
import { silentLogger } from '../../host/src/log/logger.ts';
import { type ControlPlaneInfo, adminKubeConfig } from '../../lab/controlplane/index.ts';

export { eventually } from '../../lab/process/index.ts';

export interface Harness {
  client: KubeClient;
  informers: SharedInformers;
  recorder: EventRecorder;
  registry: Registry;
  /** Starts the informers, waits for their sync, then runs `controller` until stop(). */
  run(controller: { run(signal: AbortSignal): Promise<void> }): Promise<void>;
  /** Stops the controllers run() started, the informers and the event recorder. */
  stop(): Promise<void>;
}

export async function startHarness(info: ControlPlaneInfo, component: string): Promise<Harness> {
  const registry = new Registry();
  const client = new KubeClient(adminKubeConfig(info), { qps: 500, burst: 1000, registry });
  const informers = sharedInformers(client, silentLogger);
  const recorder = new EventRecorder({ sink: kubeEventSink(client), component, logger: silentLogger });
  const stopped = new AbortController();
  return {
    client,
    informers,
    recorder,
    registry,
    async run(controller) {
      informers.start();
      await informers.waitForSync(stopped.signal);
      void controller.run(stopped.signal);
    },
    async stop() {
      stopped.abort();
      await informers.stop();
      await recorder.flush();
    },
  };
}

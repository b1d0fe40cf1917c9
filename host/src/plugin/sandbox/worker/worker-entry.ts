// Entry point of a plugin worker thread. It holds the instances (slots, guest-slot.ts) the main thread opens in it,
// each serving calls from a channel of its own, until the main thread closes them or terminates the worker.
// It holds no credentials and has no environment: the main thread starts it with an empty `env`, WASI is off and
// no paths or hosts are given to Extism.
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../../util/error-message.ts';
import { GuestSlot } from './guest-slot.ts';
import { isHostMessage, type OpenSlotMessage, type WorkerMessage, type WorkerStartData } from './worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('worker-entry.ts must run in a worker thread');
const post = (message: WorkerMessage): void => port.postMessage(message);
const start = workerData as WorkerStartData;
const slots = new Map<number, GuestSlot>();
/** Slots being opened, and those of them closed meanwhile: closed as soon as they are open. */
const opening = new Set<number>();
const closedEarly = new Set<number>();

async function open(message: OpenSlotMessage): Promise<void> {
  const { slot, channel, logs, config } = message;
  let guest: GuestSlot;
  opening.add(slot);
  try {
    guest = await GuestSlot.open({ slot, channel, logs, config, module: start.module, limits: start.limits, post });
  } catch (err) {
    closedEarly.delete(slot);
    post({ type: 'failed', slot, error: err instanceof Error ? `${err.name}: ${err.message}` : errorMessage(err) });
    return;
  } finally {
    opening.delete(slot);
  }
  if (closedEarly.delete(slot)) return;
  slots.set(slot, guest);
  post({ type: 'ready', slot });
  await guest.serve();
}

port.on('message', (message: unknown) => {
  if (!isHostMessage(message)) return;
  if (message.type === 'open') {
    void open(message);
    return;
  }
  const guest = slots.get(message.slot);
  if (guest !== undefined) {
    guest.close();
    slots.delete(message.slot);
  } else if (opening.has(message.slot)) {
    closedEarly.add(message.slot);
  }
});

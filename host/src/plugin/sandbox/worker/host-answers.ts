// The guests of one worker that wait for the main thread's answer to a host request (ccm_http, ccm_http_bytes), and
// which of them to run first. Atomics.waitAsync settles a wait as a task of the worker, in the order the main thread
// notified: an answer that comes in while calls of other instances are queued to start waits behind every one of
// them, and each start holds the worker for as long as its guest computes (the first call of an instance decodes a
// whole node list). In a burst of load balancer syncs the first call's GET answer waited 53 ms behind seven such
// starts. So before a slot starts a call, the guests whose answer is already in are resumed and run up to their next
// host request or their end: calls under way finish before new ones begin, and none waits for more than one round.

import { Channel, ChannelState } from '../channel.ts';

export class HostAnswers {
  // Channel -> the function that resumes its guest ahead of the wait's own task.
  readonly #waiting = new Map<Channel, () => void>();

  /** Resolves once `channel` no longer says `hostRequest`: the answer is in, or the instance is out of service. */
  async until(channel: Channel): Promise<void> {
    if (channel.state !== ChannelState.hostRequest) return;
    // Resolved only once the state has left hostRequest, which only this thread sets: the loop below never spins.
    const answered = new Promise<void>((resolve) => this.#waiting.set(channel, resolve));
    try {
      while (channel.state === ChannelState.hostRequest) {
        await Promise.race([channel.waitChange(ChannelState.hostRequest), answered]);
      }
    } finally {
      this.#waiting.delete(channel);
    }
  }

  /**
   * Resumes every waiting guest whose answer is in, and resolves after they have run (to their next wait or their
   * end); at once when there is none.
   */
  async resumeAnswered(): Promise<void> {
    let resumed = false;
    for (const [channel, resume] of this.#waiting) {
      if (channel.state === ChannelState.hostRequest) continue;
      resume();
      resumed = true;
    }
    // A resumed guest runs in microtasks (the import's promise, then the suspended stack); an immediate comes after
    // all of them.
    if (resumed) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** How many guests wait for an answer now. */
  get waiting(): number {
    return this.#waiting.size;
  }
}

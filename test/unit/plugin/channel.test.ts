import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Channel, ChannelState } from '../../../host/src/plugin/channel/channel.ts';

describe('channel', () => {
  it('grows on demand up to its maximum and refuses beyond', () => {
    const channel = Channel.create(16, 1000);
    expect(channel.payload.length).toBe(16);
    expect(channel.reserve(10)).toBe(true);
    expect(channel.payload.length).toBe(16);
    expect(channel.reserve(20)).toBe(true);
    expect(channel.payload.length).toBe(32); // doubles
    expect(channel.reserve(999)).toBe(true);
    expect(channel.payload.length).toBe(999);
    expect(channel.reserve(1001)).toBe(false);
  });

  it('hands state and bytes to another thread, which sees growth made on this one', async () => {
    const channel = Channel.create(8, 1 << 20);
    // The worker waits for `call`, reads the payload length it sees, answers with `done`.
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       const header = new Int32Array(workerData, 0, 16);
       while (Atomics.load(header, 0) !== 1) Atomics.wait(header, 0, Atomics.load(header, 0));
       const payload = new Uint8Array(workerData, 64);
       header[2] = payload.length; header[3] = payload[payload.length - 1];
       Atomics.store(header, 0, 4); Atomics.notify(header, 0);`,
      { eval: true, workerData: channel.buffer },
    );
    expect(channel.reserve(5000)).toBe(true);
    channel.payload[channel.payload.length - 1] = 42;
    channel.publish(ChannelState.call);
    while (channel.state !== ChannelState.done) await channel.waitWhileAsync(channel.state, 2000);
    expect(channel.length).toBe(channel.payload.length);
    expect(channel.aux).toBe(42);
    await worker.terminate();
  });

  it('times out an async wait without blocking the thread', async () => {
    const channel = Channel.create(8, 64);
    const started = performance.now();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    expect(await channel.waitWhileAsync(ChannelState.idle, 60)).toBe(false);
    clearInterval(ticker);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(ticks).toBeGreaterThan(3);
  });
});

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Channel, ChannelState } from '../../../host/src/plugin/sandbox/channel.ts';

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

  it('writes text as UTF-8 straight into the payload, growing it as needed', () => {
    const channel = Channel.create(16, 4096);
    const decode = (offset: number, length: number): string =>
      new TextDecoder().decode(channel.payload.slice(offset, offset + length));
    expect(channel.writeText(3, 'plain ascii')).toBe(11);
    expect(decode(3, 11)).toBe('plain ascii');
    const mixed = 'zürich ☁ 東京 🚀 '.repeat(20);
    const bytes = Buffer.byteLength(mixed);
    expect(channel.writeText(5, mixed)).toBe(bytes); // more bytes than UTF-16 units: needs a second, exact growth
    expect(decode(5, bytes)).toBe(mixed);
    expect(channel.payload.length).toBeGreaterThanOrEqual(5 + bytes);
    expect(channel.writeText(0, '')).toBe(0);
  });

  it('writes text whose last character only just fits, or just does not', () => {
    // 8 payload bytes from offset 2: room for 6. '€' is 3 bytes: two fit exactly, a third needs growth.
    const fits = Channel.create(8, 64);
    expect(fits.writeText(2, '€€')).toBe(6);
    expect(fits.payload.length).toBe(8);
    const grows = Channel.create(8, 64);
    expect(grows.writeText(2, 'ab€€')).toBe(8);
    expect(new TextDecoder().decode(grows.payload.slice(2, 10))).toBe('ab€€');
  });

  it('refuses text that would not fit under the maximum, by units or by bytes', () => {
    const channel = Channel.create(8, 64);
    expect(channel.writeText(0, 'x'.repeat(65))).toBe(-1);
    expect(channel.writeText(0, '€'.repeat(30))).toBe(-1); // 30 units, 90 bytes
    expect(channel.writeText(4, '€'.repeat(20))).toBe(64 - 4);
  });

  it('copies payload bytes out, small or large, into fresh or given memory', () => {
    const channel = Channel.create(16, 1 << 20);
    channel.reserve(100_000);
    for (let i = 0; i < 100_000; i++) channel.payload[i] = i % 251;
    const expected = (offset: number, length: number): number[] => Array.from({ length }, (_, i) => (offset + i) % 251);
    expect([...channel.copyOut(3, 10)]).toEqual(expected(3, 10));
    const large = channel.copyOut(7, 90_000);
    expect(large.byteLength).toBe(90_000);
    expect(large.buffer.byteLength).toBe(90_000); // a buffer of its own, not shared
    expect([...large.subarray(89_990)]).toEqual(expected(7 + 89_990, 10));
    const target = new Uint8Array(50_000);
    channel.copyTo(target, 11, 40_000);
    expect([...target.subarray(39_995, 40_001)]).toEqual([...expected(11 + 39_995, 5), 0]);
    expect(() => channel.copyTo(new Uint8Array(10), 0, 11)).toThrow(RangeError);
    expect(() => channel.copyTo(target, channel.payload.length - 5, 10)).toThrow(RangeError);
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
    while (channel.state !== ChannelState.done) await channel.waitChange(channel.state);
    expect(channel.length).toBe(channel.payload.length);
    expect(channel.aux).toBe(42);
    await worker.terminate();
  });

  it('ends an async wait on wake(), with the state unchanged, without blocking the thread', async () => {
    const channel = Channel.create(8, 64);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    setTimeout(() => channel.wake(), 60);
    const started = performance.now();
    await channel.waitChange(ChannelState.idle);
    clearInterval(ticker);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(ticks).toBeGreaterThan(3);
    expect(channel.state).toBe(ChannelState.idle);
  });
});

// The log buffer a plugin instance's records travel in during a call (sandbox/log-buffer.ts): what one side appends
// the other takes, in order and whole, across growth, and seen through a second view of the same memory, as the
// other thread holds one.
import { describe, expect, it } from 'vitest';
import { LOG_RECORD_OVERHEAD, LogBuffer } from '../../../host/src/plugin/sandbox/log-buffer.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('LogBuffer', () => {
  it('hands the records over in order, text as bytes or as a string, and is empty after a take', () => {
    const worker = LogBuffer.create(1024);
    const main = new LogBuffer(worker.buffer);
    expect(worker.append('ccm_log', 'info', utf8('{"level":"info","message":"é ✓"}'))).toBe(true);
    expect(worker.append('kernel', 'warn', 'a kernel line ✓')).toBe(true);
    expect(worker.append('runtime', 'error', '')).toBe(true);
    expect(main.take()).toEqual([
      { source: 'ccm_log', level: 'info', text: '{"level":"info","message":"é ✓"}' },
      { source: 'kernel', level: 'warn', text: 'a kernel line ✓' },
      { source: 'runtime', level: 'error', text: '' },
    ]);
    expect(main.take()).toEqual([]);
    expect(worker.append('kernel', 'debug', 'after')).toBe(true);
    expect(main.take()).toEqual([{ source: 'kernel', level: 'debug', text: 'after' }]);
  });

  it('grows to its capacity and refuses a record beyond it, keeping those before', () => {
    const capacity = 64 * 1024;
    const worker = LogBuffer.create(capacity);
    const main = new LogBuffer(worker.buffer);
    const record = 'x'.repeat(1000);
    let appended = 0;
    while (worker.append('kernel', 'info', record)) appended++;
    expect(appended).toBe(Math.floor(capacity / (record.length + LOG_RECORD_OVERHEAD)));
    expect(worker.buffer.byteLength).toBe(worker.buffer.maxByteLength);
    const taken = main.take();
    expect(taken).toHaveLength(appended);
    expect(taken.every((entry) => entry.text === record)).toBe(true);
    // Emptied, the whole capacity is there again.
    expect(worker.append('kernel', 'info', 'y'.repeat(capacity - LOG_RECORD_OVERHEAD))).toBe(true);
    expect(worker.append('kernel', 'info', '')).toBe(false);
    expect(main.take()[0]?.text).toHaveLength(capacity - LOG_RECORD_OVERHEAD);
  });
});

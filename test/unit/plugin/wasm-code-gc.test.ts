// V8's Wasm code GC stays off once plugin instances run (module/engine-flags.ts: with it on, V8 13.6 can free an
// import wrapper twice and abort the process). A child process traces V8's code GCs while it loses 20 instances that
// each tiered up their import wrappers. With code GC on, the same churn starts GCs in which worker isolates report
// their live code and import wrappers are freed ("Isolate 5 reporting...", "Freeing 8 wrappers"); a GC while the
// child is still loading its TypeScript, before any worker exists, involves the main isolate (0) only.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = new URL('./support/instance-churn-child.ts', import.meta.url).pathname;

describe('Wasm code GC', () => {
  it('never runs while plugin instances are started and lost', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--trace-wasm-code-gc', '--no-warnings', CHILD, '10'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const output = stdout + stderr;
    expect(Number(/^replaced (\d+)$/m.exec(output)?.[1])).toBeGreaterThanOrEqual(20);
    expect(output).not.toMatch(/\[wasm-gc\] Isolate [1-9]\d* reporting/);
    expect(output).not.toMatch(/\[wasm-gc\] Freeing \d+ wrappers/);
  }, 60_000);
});

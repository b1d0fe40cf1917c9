import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../../host/src/plugin/instance/plugin-instance.ts';

describe('plugin worker execArgv', () => {
  it('drops the V8 heap sizing flags new Worker() refuses, and keeps the rest', () => {
    const argv = [
      '--max-semi-space-size=1',
      '--max_semi_space_size=2',
      '--max-old-space-size=256',
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/prof',
      '--heapsnapshot-signal=SIGUSR2',
    ];
    expect(workerExecArgv(argv)).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/prof', '--heapsnapshot-signal=SIGUSR2']);
  });

  it('what it drops is what Node refuses', () => {
    expect(() => new Worker('0', { eval: true, execArgv: ['--max-semi-space-size=1'] })).toThrow(/invalid execArgv/);
  });
});

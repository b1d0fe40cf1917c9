import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startWorker, workerExecArgv } from '../../../host/src/plugin/sandbox/plugin-worker.ts';

describe('plugin worker execArgv', () => {
  it('drops the V8 heap flags new Worker() refuses, and keeps the rest', () => {
    const argv = [
      '--max-semi-space-size=1',
      '--max_semi_space_size=2',
      '--max-old-space-size=256',
      '--heap-growing-percent=100',
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/prof',
      '--heapsnapshot-signal=SIGUSR2',
    ];
    expect(workerExecArgv(argv)).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/prof', '--heapsnapshot-signal=SIGUSR2']);
  });

  it('what it drops is what Node refuses', () => {
    for (const flag of ['--max-semi-space-size=1', '--heap-growing-percent=100']) {
      expect(() => new Worker('0', { eval: true, execArgv: [flag] })).toThrow(/invalid execArgv/);
    }
  });
});

describe('startWorker', () => {
  it('drops the flags Node refuses in a worker (named in its error), keeps the rest, and remembers them', async () => {
    const tried: string[][] = [];
    const create = (execArgv: string[]): Worker => {
      tried.push(execArgv);
      return new Worker('require("node:worker_threads").parentPort.postMessage(process.execArgv)', {
        eval: true,
        execArgv,
      });
    };
    const argv = ['--expose-gc', '--enable-source-maps', '--max-semi-space-size=1'];
    const worker = startWorker(create, argv);
    const seen = await new Promise<string[]>((resolve) => worker.once('message', resolve));
    await worker.terminate();
    expect(tried).toEqual([['--expose-gc', '--enable-source-maps'], ['--enable-source-maps']]);
    expect(seen).toEqual(['--enable-source-maps']);
    // Learned once: the next worker is created at the first try.
    tried.length = 0;
    const second = startWorker(create, argv);
    await new Promise((resolve) => second.once('message', resolve));
    await second.terminate();
    expect(tried).toEqual([['--enable-source-maps']]);
  });

  it('passes other errors through', () => {
    expect(() =>
      startWorker(() => {
        throw new Error('no threads left');
      }, []),
    ).toThrow('no threads left');
  });
});

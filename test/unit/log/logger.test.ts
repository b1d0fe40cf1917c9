import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJsonLineLogger, stdoutLines } from '../../../host/src/log/logger.ts';

const fixedNow = (): Date => new Date('2026-01-02T03:04:05.000Z');

function capture(): { lines: string[]; logger: ReturnType<typeof createJsonLineLogger> } {
  const lines: string[] = [];
  return { lines, logger: createJsonLineLogger({ write: (l) => lines.push(l), now: fixedNow, fields: { c: 'x' } }) };
}

describe('createJsonLineLogger', () => {
  it('writes one JSON line per record with bound fields, time, level and message', () => {
    const { lines, logger } = capture();
    logger.child({ controller: 'node' }).info('synced', { node: 'n1', count: 3, ok: true, gone: null });
    expect(lines).toEqual([
      '{"c":"x","controller":"node","node":"n1","count":3,"ok":true,"gone":null,"time":"2026-01-02T03:04:05.000Z","level":"info","msg":"synced"}\n',
    ]);
  });

  it('keeps time, level and msg from being overwritten by fields', () => {
    const { lines, logger } = capture();
    logger.warn('real', { msg: 'fake', level: 'debug', time: 'then' });
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      msg: 'real',
      level: 'warn',
      time: '2026-01-02T03:04:05.000Z',
    });
  });

  it('drops records below the level', () => {
    const lines: string[] = [];
    const logger = createJsonLineLogger({ write: (l) => lines.push(l), level: 'warn' });
    logger.debug('a');
    logger.info('b');
    logger.error('c');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['c']);
  });

  it('never throws on Errors, BigInts, nested objects and cycles', () => {
    const { lines, logger } = capture();
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    logger.error('bad', { error: new TypeError('boom'), big: 12n, nested: { a: [1, 2] }, cycle });
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      error: { name: 'TypeError', message: 'boom' },
      big: '12',
      nested: { a: [1, 2] },
      cycle: { name: 'loop', self: '[circular]' },
    });
  });
});

describe('stdoutLines', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the lines of one event-loop turn in one write, after the turn', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const out = stdoutLines();
    out('a\n');
    out('b\n');
    out('c\n');
    expect(write).not.toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(write.mock.calls).toEqual([['a\nb\nc\n']]);
    out('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(write.mock.calls).toEqual([['a\nb\nc\n'], ['d\n']]);
  });

  it('is one writer per process', () => {
    expect(stdoutLines()).toBe(stdoutLines());
  });

  it('writes pending lines when the process exits before the next turn', () => {
    const script = `
      import { createJsonLineLogger } from ${JSON.stringify(new URL('../../../host/src/log/logger.ts', import.meta.url).href)};
      const logger = createJsonLineLogger();
      for (let i = 0; i < 3; i++) logger.info('line ' + i);
      process.exit(0);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { msg: string }).msg),
    ).toEqual(['line 0', 'line 1', 'line 2']);
  });
});

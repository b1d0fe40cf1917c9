// klog's V(n) in the CCM's logger: which records each -v writes, the level changed while running, the plain records
// of the flag dump, and the header's microseconds.
import { describe, expect, it } from 'vitest';
import { wallClockMicros } from '../../../host/src/log/clock.ts';
import { formatKlogJson, formatKlogText, type KlogRecord } from '../../../host/src/log/klog.ts';
import {
  createJsonLineLogger,
  createKlogLogger,
  parseVerbosity,
  silentLogger,
  Verbosity,
} from '../../../host/src/log/logger.ts';

const at = new Date('2026-11-04T03:04:05.678Z');

function capture(format: 'text' | 'json', verbosity: number | Verbosity) {
  const lines: string[] = [];
  let lookups = 0;
  const log = createKlogLogger({
    format,
    verbosity,
    write: (l) => lines.push(l),
    now: () => at,
    caller: () => {
      lookups++;
      return 'x.ts:1';
    },
  });
  return { lines, log, lookups: () => lookups };
}

/** One record at each verbosity 0..6, then the messages written. */
function writtenAt(verbosity: number): string[] {
  const { lines, log } = capture('json', verbosity);
  for (let n = 0; n <= 6; n++) log.child({ c: 'x' }).v(n).info(`v${n}`);
  return lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
}

describe('V(n) records', () => {
  it('are written while -v is n or more, each level adding its own', () => {
    expect(writtenAt(0)).toEqual(['v0']);
    expect(writtenAt(2)).toEqual(['v0', 'v1', 'v2']);
    expect(writtenAt(4)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
  });

  it('carry their verbosity as "v" in JSON and I in the text header; bound fields go with them', () => {
    const json = capture('json', 5);
    json.log.child({ controller: 'service' }).v(4).info('Finished syncing service', { service: 'default/s' });
    expect(JSON.parse(json.lines[0] as string)).toEqual({
      ts: at.getTime(),
      caller: 'x.ts:1',
      msg: 'Finished syncing service',
      v: 4,
      controller: 'service',
      service: 'default/s',
    });
    const text = capture('text', 5);
    text.log.v(3).info('Listing and watching', { informer: 'nodes' });
    expect(text.lines[0]).toMatch(/^I1104 03:04:05\.678000 +\d+ x\.ts:1\] "Listing and watching" informer="nodes"\n$/);
  });

  it('follow a Verbosity changed after the logger was made, and say whether they are on', () => {
    const level = new Verbosity(0);
    const { lines, log } = capture('text', level);
    const v4 = log.child({ plugin: 'p' }).v(4);
    expect(v4.enabled).toBe(false);
    v4.info('before');
    level.level = 4;
    expect(v4.enabled).toBe(true);
    v4.info('after');
    level.level = 1;
    v4.info('again off');
    log.debug('debug is v 2');
    expect(lines.map((l) => /\] "([^"]*)"/.exec(l)?.[1])).toEqual(['after']);
  });

  it('cost no caller lookup, clock read or line when off, and reuse one V(n) logger per level', () => {
    const { lines, log, lookups } = capture('text', 1);
    for (let i = 0; i < 1000; i++) log.v(4).info('off', { i });
    expect(lines).toHaveLength(0);
    expect(lookups()).toBe(0);
    expect(log.v(4)).toBe(log.v(4));
  });

  it('are debug records in the plain JSON lines from 1 on, and never written by the silent logger', () => {
    const lines: string[] = [];
    const info = createJsonLineLogger({ write: (l) => lines.push(l) });
    info.v(0).info('zero');
    info.v(2).info('two');
    expect(info.v(2).enabled).toBe(false);
    const debug = createJsonLineLogger({ write: (l) => lines.push(l), level: 'debug' });
    debug.v(4).info('four');
    expect(lines.map((l) => JSON.parse(l) as { msg: string; level: string })).toMatchObject([
      { msg: 'zero', level: 'info' },
      { msg: 'four', level: 'debug' },
    ]);
    expect(silentLogger.v(0).enabled).toBe(false);
  });
});

describe('plain records (klog Info: the flag dump, Version)', () => {
  it('print their text unquoted without fields in text, and as msg with their v in JSON', () => {
    const text = capture('text', 1);
    text.log.child({ controller: 'x' }).v(1).print('FLAG: --v="1"');
    expect(text.lines[0]).toMatch(/^I1104 03:04:05\.678000 +\d+ x\.ts:1\] FLAG: --v="1"\n$/);
    const json = capture('json', 1);
    json.log.v(1).print('FLAG: --v="1"');
    expect(JSON.parse(json.lines[0] as string)).toEqual({
      ts: at.getTime(),
      caller: 'x.ts:1',
      msg: 'FLAG: --v="1"',
      v: 1,
    });
  });

  it('are quoted when the text has a line break, so it cannot pass for records of its own', () => {
    const text = capture('text', 0);
    text.log.v(0).print('a\nI1104 00:00:00.000000 1 forged.go:1] "x"');
    expect(text.lines).toHaveLength(1);
    expect(text.lines[0]?.split('\n')).toHaveLength(2);
    expect(text.lines[0]).toContain('"a\\nI1104');
  });
});

describe('the header time', () => {
  const base: KlogRecord = { level: 'info', message: 'm', fields: {}, time: 0, caller: 'x.ts:1', pid: 7 };

  it('prints the record time to the microsecond, and JSON ts in milliseconds', () => {
    const time = Date.parse('2026-11-04T03:04:05.678Z') * 1000 + 912;
    expect(formatKlogText({ ...base, time })).toBe('I1104 03:04:05.678912       7 x.ts:1] "m"\n');
    expect(JSON.parse(formatKlogJson({ ...base, time })).ts).toBe(Date.parse('2026-11-04T03:04:05.678Z'));
  });

  it('comes from a clock with microseconds that stays within the wall clock millisecond', () => {
    const samples: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      const micros = wallClockMicros();
      const after = Date.now();
      expect(micros).toBeGreaterThanOrEqual(before * 1000);
      expect(micros).toBeLessThan((after + 1) * 1000);
      samples.push(micros % 1000);
    }
    // Sub-millisecond digits vary: not the `000` a Date would give.
    expect(new Set(samples).size).toBeGreaterThan(10);
  });

  it('of a default logger has microseconds', () => {
    const lines: string[] = [];
    const log = createKlogLogger({ format: 'text', verbosity: 0, write: (l) => lines.push(l) });
    for (let i = 0; i < 50; i++) log.info('tick');
    const micros = lines.map((l) => /^I\d{4} \d\d:\d\d:\d\d\.\d{3}(\d{3}) /.exec(l)?.[1]);
    expect(micros.every((m) => m !== undefined)).toBe(true);
    expect(micros.some((m) => m !== '000')).toBe(true);
  });
});

describe('parseVerbosity and Verbosity', () => {
  it('take a decimal level from 0 on, white space around it allowed', () => {
    expect(parseVerbosity('4')).toBe(4);
    expect(parseVerbosity(' 10\n')).toBe(10);
    expect(new Verbosity(3).level).toBe(3);
  });

  it('refuse anything else, naming the text', () => {
    for (const bad of ['', '-1', '2.5', 'four', '4 5', '99999999999']) {
      expect(() => parseVerbosity(bad)).toThrow(/invalid verbosity/);
    }
    expect(() => parseVerbosity('four')).toThrow(/"four"/);
    expect(() => new Verbosity(-1)).toThrow(/invalid verbosity -1/);
  });
});

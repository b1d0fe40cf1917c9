import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatKlogJson, formatKlogText, type KlogRecord } from '../../../host/src/log/klog.ts';
import { createKlogLogger } from '../../../host/src/log/logger.ts';
import { parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { FlagError } from '../../../host/src/options/flagset.ts';

const at = new Date('2026-11-04T03:04:05.678Z');

function record(over: Partial<KlogRecord>): KlogRecord {
  return {
    level: 'info',
    message: 'Synced node',
    fields: {},
    time: at.getTime() * 1000,
    caller: 'node.js:12',
    pid: 4321,
    ...over,
  };
}

function capture(
  format: 'text' | 'json',
  verbosity = 0,
): { lines: string[]; log: ReturnType<typeof createKlogLogger> } {
  const lines: string[] = [];
  const log = createKlogLogger({ format, verbosity, write: (l) => lines.push(l), now: () => at });
  return { lines, log };
}

describe('klog text records', () => {
  it('have the header Lmmdd hh:mm:ss.uuuuuu pid file:line] then the quoted message and key/value pairs', () => {
    const line = formatKlogText(record({ fields: { controller: 'cloud-node', node: 'n1', count: 3, ok: true } }));
    expect(line).toBe(
      'I1104 03:04:05.678000    4321 node.js:12] "Synced node" controller="cloud-node" node="n1" count=3 ok=true\n',
    );
  });

  it('mark warnings W and errors E, with the error first under err', () => {
    expect(formatKlogText(record({ level: 'warn' }))).toMatch(/^W1104 /);
    const line = formatKlogText(record({ level: 'error', fields: { node: 'n1', error: new Error('boom "x"') } }));
    expect(line).toBe('E1104 03:04:05.678000    4321 node.js:12] "Synced node" err="boom \\"x\\"" node="n1"\n');
  });

  it('print a multi-line value indented between =< and >, and objects as JSON', () => {
    const line = formatKlogText(record({ fields: { stack: 'a\nb', spec: { ports: [80] } } }));
    expect(line).toBe(
      'I1104 03:04:05.678000    4321 node.js:12] "Synced node" stack=<\n\ta\n\tb\n > spec={"ports":[80]}\n',
    );
  });
});

describe('klog JSON records', () => {
  it('carry ts in ms, caller, msg, v, then the key/value pairs', () => {
    const line = formatKlogJson(record({ fields: { node: 'n1', count: 3 } }));
    expect(line).toBe(`{"ts":${at.getTime()},"caller":"node.js:12","msg":"Synced node","v":0,"node":"n1","count":3}\n`);
  });

  it('give an error record no v and its error under err; warnings are v 0 and debug v 2, as klog logs them', () => {
    const error = JSON.parse(formatKlogJson(record({ level: 'error', fields: { err: new Error('boom'), node: 'n' } })));
    expect(error).toEqual({ ts: at.getTime(), caller: 'node.js:12', msg: 'Synced node', err: 'boom', node: 'n' });
    expect(Object.keys(error)).toEqual(['ts', 'caller', 'msg', 'err', 'node']);
    expect(JSON.parse(formatKlogJson(record({ level: 'warn' }))).v).toBe(0);
    expect(JSON.parse(formatKlogJson(record({ level: 'debug' }))).v).toBe(2);
  });

  it('never let a field replace klog keys, and never throw on cycles or BigInts', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const line = formatKlogJson(record({ fields: { msg: 'fake', v: 9, ts: 1, big: 12n, cycle } }));
    expect(JSON.parse(line)).toEqual({
      ts: at.getTime(),
      caller: 'node.js:12',
      msg: 'Synced node',
      v: 0,
      big: '12',
      cycle: { self: '[circular]' },
    });
  });
});

describe('createKlogLogger', () => {
  it("names the caller's file and line, not the logger's", () => {
    // In a plain Node process: vitest's transform moves lines, and the header shows the line Node runs.
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-caller-'));
    const probe = join(dir, 'probe.mjs');
    const logger = pathToFileURL(join(import.meta.dirname, '../../../host/src/log/logger.ts')).href;
    writeFileSync(
      probe,
      [
        `import { createKlogLogger } from ${JSON.stringify(logger)};`,
        `const log = createKlogLogger({ format: 'json', verbosity: 0, write: (l) => process.stdout.write(l) });`,
        `log.child({ controller: 'route' }).info('hello');`,
      ].join('\n'),
    );
    try {
      const out = execFileSync(process.execPath, [probe], { encoding: 'utf8' });
      expect(JSON.parse(out)).toMatchObject({ caller: 'probe.mjs:3', msg: 'hello', controller: 'route' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('looks the caller up once for a logger of one site (atOneSite), its children and V(n) included', () => {
    const lines: string[] = [];
    let lookups = 0;
    const caller = (): string => `site.js:${++lookups}`;
    const log = createKlogLogger({ format: 'json', verbosity: 0, write: (l) => lines.push(l), caller });
    const pinned = log.atOneSite?.();
    if (!pinned) throw new Error('a klog logger has atOneSite');
    pinned.info('a');
    pinned.child({ node: 'n1' }).info('b');
    pinned.v(0).info('c');
    // The logger it came from, and another pinned one, keep their own lookups.
    log.info('d');
    log.atOneSite?.().info('e');
    const callers = lines.map((l) => (JSON.parse(l) as { caller: string }).caller);
    expect(callers).toEqual(['site.js:1', 'site.js:1', 'site.js:1', 'site.js:2', 'site.js:3']);
  });

  it('drops debug records below -v=2 and writes them from it', () => {
    const quiet = capture('text', 0);
    quiet.log.debug('detail');
    quiet.log.info('shown');
    expect(quiet.lines).toHaveLength(1);
    const verbose = capture('text', 2);
    verbose.log.debug('detail');
    expect(verbose.lines[0]).toMatch(/^I1104 .*\] "detail"\n$/);
  });
});

describe('the streams klog records go to', () => {
  function run(splitStream: boolean): { stdout: string; stderr: string } {
    const logger = pathToFileURL(join(import.meta.dirname, '../../../host/src/log/logger.ts')).href;
    const script = [
      `import { createKlogLogger } from ${JSON.stringify(logger)};`,
      `const log = createKlogLogger({ format: 'json', verbosity: 0, splitStream: ${splitStream} });`,
      `log.info('fine'); log.error('broken');`,
    ].join('\n');
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    return { stdout: out.stdout, stderr: out.stderr };
  }
  const msgs = (text: string): string[] =>
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg);

  it('are standard error for every record, as component-base writes them, and split with split-stream', () => {
    const single = run(false);
    expect(msgs(single.stderr)).toEqual(['fine', 'broken']);
    expect(msgs(single.stdout)).toEqual([]);
    const split = run(true);
    expect(msgs(split.stdout)).toEqual(['fine']);
    expect(msgs(split.stderr)).toEqual(['broken']);
  });
});

describe('--log-*-split-stream', () => {
  it('sends error records to their own stream and the rest to standard output', () => {
    const out: string[] = [];
    const err: string[] = [];
    const log = createKlogLogger({
      format: 'text',
      verbosity: 0,
      splitStream: true,
      write: (l) => out.push(l),
      errorWrite: (l) => err.push(l),
      now: () => at,
    });
    log.info('fine');
    log.warn('careful');
    log.error('broken');
    expect(out.map((l) => l[0])).toEqual(['I', 'W']);
    expect(err.map((l) => l[0])).toEqual(['E']);
  });
});

describe('--logging-format', () => {
  it('defaults to text as upstream and refuses an unknown format naming the flag', () => {
    const cmd = parseCommandLine(['--cloud-provider=x']);
    expect(cmd.kind === 'run' && cmd.options.flags['logging-format']).toBe('text');
    expect(() => parseCommandLine(['--cloud-provider=x', '--logging-format=xml'])).toThrow(FlagError);
    expect(() => parseCommandLine(['--cloud-provider=x', '--logging-format=xml'])).toThrow(/logging-format/);
  });
});

// The plugin-attack suite, answers: what a plugin's answer can cost the main thread, which parses it. A plugin that
// answers with its own input (support/echo-plugin.ts) is handed each hostile answer. Unchecked, JSON.parse of an
// unknown field nested 8,000,000 levels deep (16 MB) took RSS from 127 to 720 MB (a child with the chart's heap
// aborted: the last case here), and objects each with a key of its own cost the main thread 2.8 us apiece. The worker
// now reads each answer and hands on its canonical form, and a scan refuses nesting and value counts past the limits.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../../host/src/cloudprovider/index.ts';
import { MAX_ANSWER_VALUES } from '../../../host/src/plugin/sandbox/answer-scan.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { answering, echoModule } from './support/echo-plugin.ts';

const CHILD = new URL('./support/answer-bomb-child.ts', import.meta.url).pathname;
const ZONE = '"ok":{"failureDomain":"z","region":"r"}';
const measured: Array<Record<string, string | number>> = [];
let plugin: LoadedPlugin;

beforeAll(async () => {
  plugin = await loadPlugin({
    source: { bytes: echoModule(), name: 'echo.wasm' },
    pool: { size: 1 },
    limits: { callTimeoutMs: 20_000 },
  });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
  console.info('plugin attacks (answers)');
  console.table(measured);
});

/** getZone answered with `answer`: its outcome, and the main thread's CPU time for the whole call. */
async function answer(answer: string): Promise<{ outcome: unknown; mainCpuMs: number }> {
  const before = process.threadCpuUsage();
  const outcome = await plugin.call('getZone', answering(answer)).catch((err: unknown) => err);
  const used = process.threadCpuUsage(before);
  return { outcome, mainCpuMs: (used.user + used.system) / 1000 };
}

const objects = (count: number, each: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => each(i)).join(',');
const shuffledKeys = (i: number): string => {
  const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']
    .sort(() => Math.random() - 0.5)
    .slice(0, 1 + (i % 10));
  return `{${keys.map((k) => `"${k}":0`).join(',')}}`;
};

describe("a hostile plugin's answers", () => {
  it.each([
    ['an unknown field nested 1,000,000 levels deep', `{${ZONE},"x":${'['.repeat(1e6)}${']'.repeat(1e6)}}`],
    ['more values than the cap', `{${ZONE},"x":[${'0,'.repeat(MAX_ANSWER_VALUES)}0]}`],
    [
      'an invalid answer of objects each with a key of its own',
      `{"x":[${objects(60_000, (i) => `{"k${i.toString(36)}":0}`)}],"ok":{"failureDomain":7,"region":"r"}}`,
    ],
  ])('%s: refused, naming why, at little cost to the main thread', async (what, text) => {
    const { outcome, mainCpuMs } = await answer(text);
    expect(outcome).toBeInstanceOf(InternalError);
    expect((outcome as Error).message).toMatch(
      /^hostile\.getZone: the plugin's answer (is nested deeper than 128 levels|holds more than 131072 values|does not match the ABI: ok\.failureDomain: expected string, got 7)$/,
    );
    expect(mainCpuMs).toBeLessThan(50);
    measured.push({ answer: what, bytes: text.length, outcome: 'Internal', mainCpuMs: Math.round(mainCpuMs) });
  });

  it.each([
    ['an unknown field of objects each with a key of its own', objects(60_000, (i) => `{"k${i.toString(36)}":0}`)],
    ['an unknown field of objects with 10 keys in random orders', objects(18_000, shuffledKeys)],
  ])('%s: the main thread parses only its canonical form', async (what, unknown) => {
    const text = `{"x":[${unknown}],${ZONE},"y":"after"}`;
    const { outcome, mainCpuMs } = await answer(text);
    expect(outcome).toEqual({ failureDomain: 'z', region: 'r' });
    expect(Object.keys(outcome as object)).toEqual(['failureDomain', 'region']);
    expect(mainCpuMs).toBeLessThan(50);
    measured.push({ answer: what, bytes: text.length, outcome: 'served', mainCpuMs: Math.round(mainCpuMs) });
  });

  it('an unknown field nested 8,000,000 levels (16 MB): a child with the chart heap of 256 MiB survives', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=256', '--no-warnings', CHILD, String(8_000_000)],
      { encoding: 'utf8', timeout: 90_000 },
    );
    const result = JSON.parse(stdout.trim()) as { error: string; rssMiB: number };
    expect(result.error).toBe("hostile.getZone: the plugin's answer is nested deeper than 128 levels");
    measured.push({ answer: 'nested 8,000,000 levels (child, 256 MiB heap)', bytes: 16e6, outcome: 'Internal' });
    measured.push({ answer: '(child RSS after, MiB)', bytes: 0, outcome: String(result.rssMiB) });
  }, 90_000);
});

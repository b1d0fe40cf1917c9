// No negative expectation rests on a fixed sleep. "Wait 500 ms, then expect nothing happened" passes when the
// system is slow and the work has simply not happened yet; a test waits for a positive sign that the work was done
// (a marker processed after the object under test, a counter of completed passes, a log line, an Event), then
// asserts what must not have happened. This check scans every .ts file under test/ (tests and their support
// files; test/fixtures, plugin sources, excepted) and names each offender file:line.
//
// The heuristic, on the source with comments, strings and regex literals blanked (sleep-scan.ts):
// - A fixed sleep is `await new Promise((r) => setTimeout(r, ...))` (the timer resolving the awaited promise), or
//   `await sleep(`, `await delay(`, `await setTimeout(` (node:timers/promises), `await scheduler.wait(`.
// - A sleep inside a loop is a poll, and no finding, when the loop can end on something it observes: its body has a
//   `break` or `return`, or its condition is more than a count of rounds (`let i = 0; i < n; i++`), a clock
//   (`Date.now() < until`), `for (;;)`/`while (true)`, or a walk over a list (`const x of xs`); a `do` loop is taken
//   for a poll. In a loop that is not a poll, the scan starts at the loop's beginning: the body's first checks follow
//   the previous round's sleep.
// - From the sleep to the end of the function it is in, the first positive wait ends the scan: a call of
//   `eventually(`, `waitFor...(`, `settled(`, `expect.poll(`, `vi.waitFor(` or `vi.waitUntil(`.
// - Before that, an expectation is negative when its matcher chain has `.not.`, or is `toHaveLength(0)`,
//   `toHaveBeenCalledTimes(0)`, `toBe`/`toEqual`/`toStrictEqual` of 0, false, null, undefined, '', [] or {},
//   `toBeFalsy()`, `toBeUndefined()` or `toBeNull()`.
// What it cannot see: a negative written positively (`expect(node).toBeDefined()` for "still there") and a sleep in a
// helper whose caller asserts. Those are for review; this keeps the common shape out.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOnly, findNegativesAfterSleeps } from './sleep-scan.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TEST_DIR = join(ROOT, 'test');

function testSources(): string[] {
  return readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.startsWith('fixtures/'))
    .map((path) => join(TEST_DIR, path))
    .sort();
}

const lines = (...body: string[]): string => body.join('\n');

describe('negative expectations after a fixed sleep', () => {
  it('finds none under test/', () => {
    const sources = testSources();
    expect(sources.length).toBeGreaterThan(100);
    const findings = sources.flatMap((path) =>
      findNegativesAfterSleeps(relative(ROOT, path), readFileSync(path, 'utf8')),
    );
    expect(
      findings.map((f) => `${f.file}:${f.line}: fixed sleep, then at line ${f.expectLine} ${f.expectation}`),
    ).toEqual([]);
  });

  it('catches a negative expectation after a fixed sleep, and names file and line', () => {
    const sample = lines(
      "it('ignores a label change', async () => {",
      '  await patchLabels(svc);',
      '  await new Promise((r) => setTimeout(r, 500));',
      "  expect(calls('create')).toHaveLength(0);",
      '});',
    );
    expect(findNegativesAfterSleeps('sample.test.ts', sample)).toEqual([
      { file: 'sample.test.ts', line: 3, expectLine: 4, expectation: "expect(calls('create')).toHaveLength(0)" },
    ]);
  });

  it.each([
    ['.not.', 'expect(events).not.toContain(reason)'],
    ['toBe(false)', 'expect(b.logs().some(started)).toBe(false)'],
    ['toEqual([])', 'expect(await events(name)).toEqual([])'],
    ['toBeUndefined()', 'expect(svc.status?.loadBalancer?.ingress).toBeUndefined()'],
  ])('takes %s for negative', (_what, expectation) => {
    const sample = lines('async function t() {', '  await sleep(1_000);', `  ${expectation};`, '}');
    expect(findNegativesAfterSleeps('s.ts', sample)).toHaveLength(1);
  });

  it('catches the sleep of node:timers/promises and a sleep in a loop that only counts rounds or time', () => {
    const timers = lines('async () => {', '  await setTimeout(100);', '  expect(seen).toEqual([]);', '}');
    const rounds = lines(
      'async () => {',
      '  for (let i = 0; i < 6; i++) {',
      '    expect(follower.isLeader()).toBe(false);',
      '    await new Promise((resolve) => setTimeout(resolve, 500));',
      '  }',
      '}',
    );
    const window = lines(
      'async () => {',
      '  while (Date.now() < until) await new Promise((r) => setTimeout(r, 250));',
      '  expect(lost).toEqual([]);',
      '}',
    );
    expect(findNegativesAfterSleeps('t.ts', timers)).toHaveLength(1);
    expect(findNegativesAfterSleeps('r.ts', rounds)).toMatchObject([{ line: 4, expectLine: 3 }]);
    expect(findNegativesAfterSleeps('w.ts', window)).toHaveLength(1);
  });

  it('passes a positive wait between the sleep and the negative expectation', () => {
    const sample = lines(
      "it('ignores a label change', async () => {",
      '  await new Promise((r) => setTimeout(r, 500));',
      "  await eventually('marker ensured', () => calls('create', 'marker').length === 1);",
      "  expect(calls('create', 'web')).toHaveLength(0);",
      '});',
    );
    expect(findNegativesAfterSleeps('good.test.ts', sample)).toEqual([]);
  });

  it('passes a poll, a sleep before positive expectations only, and a negative in the next test', () => {
    const poll = lines(
      'async () => {',
      '  for (;;) {',
      '    if (ready()) break;',
      '    await new Promise((r) => setTimeout(r, 200));',
      '  }',
      '  expect(errors).toEqual([]);',
      '}',
    );
    const guarded = lines(
      'async () => {',
      '  while (!seen() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));',
      '  expect(extra).toHaveLength(0);',
      '}',
    );
    const pacing = lines(
      "it('a', async () => {",
      '  await new Promise((r) => setTimeout(r, 1_100));',
      '  expect(event.count).toBe(2);',
      '});',
      "it('b', async () => {",
      '  expect(other).toEqual([]);',
      '});',
    );
    for (const sample of [poll, guarded, pacing]) expect(findNegativesAfterSleeps('ok.ts', sample)).toEqual([]);
  });

  it('sees no code in comments, strings, templates or regex literals', () => {
    const sample = lines(
      '// await new Promise((r) => setTimeout(r, 1));',
      "const a = 'await sleep(1); expect(x).not.toBe(1)';",
      'const b = `${name} await sleep(1)`;',
      "const c = /await sleep\\(1\\)/; const d = { e: '}' };",
    );
    const code = codeOnly(sample);
    expect(code).toHaveLength(sample.length);
    expect(code).not.toMatch(/sleep|setTimeout/);
    expect(code).toContain('${name');
    expect(code).toContain('const d = { e:');
  });
});

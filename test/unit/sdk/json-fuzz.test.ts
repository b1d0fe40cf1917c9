// A seeded run of the JSON fuzzer (npm run fuzz:json runs 100,000 cases): the SDK's JSON against JSON.parse and
// JSON.stringify on generated and mutated documents.
import { describe, expect, it } from 'vitest';
import { judge, BatchRunner, compileFuzzModule, reference, runFuzz } from '../../../lab/fuzz/json/index.ts';

describe('fuzz:json', () => {
  it('finds no unexplained divergence and no trap in 50,000 seeded cases', async () => {
    const report = await runFuzz({ cases: 50_000, seed: 18 });
    expect(report.findings).toEqual([]);
    expect(report.divergences).toBe(0);
    expect(report.traps).toBe(0);
    // The run did its work: most documents were accepted by both, many refused by both, some past the depth limit.
    expect(report.valid).toBeGreaterThan(20_000);
    expect(report.mutated).toBeGreaterThan(25_000);
    expect(report.allowedByRule['depth-limit']).toBeGreaterThan(0);
  }, 120_000);

  it('judges a disagreement as a divergence (the fuzzer can fail)', () => {
    const doc = new TextEncoder().encode('[1.5]');
    expect(judge(doc, { treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text: '[1.5]' })).toEqual({
      kind: 'agree',
    });
    expect(judge(doc, { treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text: '[1.25]' }).kind).toBe(
      'divergence',
    );
    expect(judge(doc, { treeAccepted: false, skipAccepted: false, lazyMapAgrees: true, text: 'x' }).kind).toBe(
      'divergence',
    );
    expect(judge(doc, { treeAccepted: true, skipAccepted: false, lazyMapAgrees: true, text: '[1.5]' }).kind).toBe(
      'divergence',
    );
    const bad = new TextEncoder().encode('[1.]');
    expect(judge(bad, { treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text: '[1]' }).kind).toBe(
      'divergence',
    );
  });

  it("does not count a key V8's poisoned key cache misreads (nodejs/node#63785), and still counts a wrong key", () => {
    // After a key that is a lone backslash, this process's JSON.parse may read an escaped key of the same object shape
    // as that backslash; the judge then asks a fresh process.
    JSON.parse('{"poison":1,"\\\\":1}');
    const poisoned = Object.keys(JSON.parse('{"poison":1,"\\u0071":1}') as object)[1] !== 'q';
    const doc = new TextEncoder().encode('{"poison":1,"\\u0071":1}');
    const sdk = (text: string) => ({ treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text });
    expect(judge(doc, sdk('{"poison":1,"q":1}'))).toEqual(
      poisoned ? { kind: 'allowed', rule: 'v8-key-cache' } : { kind: 'agree' },
    );
    expect(judge(doc, sdk('{"poison":1,"r":1}')).kind).toBe('divergence');
    // Only a reference this process read wrong is set aside: a number the SDK wrote past f64's range instead of
    // null reads the same in both processes, and still counts.
    expect(judge(new TextEncoder().encode('[1e400]'), sdk('[1e999]')).kind).toBe('divergence');
  });

  it('allows the depth limit by the nesting of the text, even where a duplicate key makes the value shallow', () => {
    const deep = new TextEncoder().encode(`{"k":${'['.repeat(300)}${']'.repeat(300)},"k":1}`);
    const refused = {
      treeAccepted: false,
      skipAccepted: false,
      lazyMapAgrees: true,
      text: '$.k: JSON nested deeper than 256 levels',
    };
    expect(judge(deep, refused)).toEqual({ kind: 'allowed', rule: 'depth-limit' });
    const shallow = new TextEncoder().encode(`{"k":${'['.repeat(200)}${']'.repeat(200)}}`);
    expect(judge(shallow, refused).kind).toBe('divergence');
  });

  it('skips objects and reads maps of strings as the reference does, on crafted cases and every prefix', async () => {
    // skip() checks a skipped object's keys without decoding them, readMapBytes checks a map without reading it: each
    // case must be accepted by skip() exactly when JSON.parse accepts it, and give readMap's entries or its problem.
    const long = ' {\n "a" : "1" ,\t"b":"", "é":"ü","a":"2" ,"c":"x\\"y", "\\u0064":"d"} ';
    const texts = [
      ...['{}', '{ }', '{"a":"1"}', '{"a":"1",}', '{"a" "1"}', '{"a":1}', '{"a":"1" "b":"2"}', '{,}', '{"a":"1"}}'],
      ...['{"a":"\\u0001"}', '{"a":"\u0001"}', '{"a":"1"', '{"a"}', '{"a":}', '{:"1"}', '{1:"2"}'],
      ...['{"\\x":"1"}', '{"\u0001":"1"}', '{"a\\"b":{"c":[{"d\\u0065":null}]}}', '{"a":{"b" 1}}'],
      ...Array.from({ length: long.length + 1 }, (_, i) => long.slice(0, i)),
    ];
    const docs = texts.map((t) => new TextEncoder().encode(t));
    const runner = new BatchRunner(await compileFuzzModule());
    try {
      const outcomes = await runner.outcomes(docs);
      const wrong = texts.filter((_, i) => {
        const outcome = outcomes[i];
        return outcome instanceof Error || !outcome?.lazyMapAgrees || outcome.skipAccepted !== reference(docs[i]!).ok;
      });
      expect(wrong).toEqual([]);
      const accepted = docs.filter((doc) => reference(doc).ok).length;
      expect(accepted).toBeGreaterThanOrEqual(6);
      expect(accepted).toBeLessThan(texts.length - 10);
    } finally {
      await runner.close();
    }
  }, 60_000);

  it('pins a trap on its case and goes on with a fresh instance', async () => {
    const runner = new BatchRunner(await compileFuzzModule());
    try {
      const docs = ['[1]', '\u0000trap', '{"a":2}'].map((t) => new TextEncoder().encode(t));
      const outcomes = await runner.outcomes(docs);
      expect(outcomes[0]).toEqual({ treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text: '[1]' });
      expect(outcomes[1]).toBeInstanceOf(Error);
      expect(outcomes[2]).toEqual({ treeAccepted: true, skipAccepted: true, lazyMapAgrees: true, text: '{"a":2}' });
    } finally {
      await runner.close();
    }
  }, 60_000);
});

// A seeded run of the differential fuzzer (npm run fuzz:http1): Http1Pool and node:http read the same generated and
// mutated answers from one raw server; they must agree except where the allow-list says Http1Pool is stricter on
// purpose, and no request may receive the bytes the server sent for another.
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../../lab/fuzz/http1/index.ts';

describe('Http1Pool against node:http on fuzzed answers', () => {
  it('agrees on 2,000 seeded cases but for the allow-list, and never cross-delivers', async () => {
    const report = await runFuzz({ cases: 2_000, seed: 20_260_101, concurrency: 32 });
    expect(report.examples).toEqual([]);
    expect(report).toMatchObject({ divergences: 0, cross_request_deliveries: 0 });
    // The run did the work: most requests agree, many of them with an answer both clients took.
    expect(report.requests).toBeGreaterThan(4_000);
    expect(report.agreements).toBeGreaterThan(report.requests * 0.7);
    const bothOk = Object.values(report.by_kind).reduce((sum, [, ok]) => sum + ok, 0);
    expect(bothOk).toBeGreaterThan(1_500);
    expect(report.allowed_by_rule['unexpected-data']).toBeGreaterThan(0);
  }, 60_000);
});

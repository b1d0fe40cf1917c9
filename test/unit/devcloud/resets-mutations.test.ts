// Connection resets (before the operation, or after it with the answer lost) and the mutation log that says who
// changed what: the chaos benchmark relies on both.
import { afterEach, describe, expect, it } from 'vitest';
import { CALLER_HEADER } from '../../../devcloud/src/index.ts';
import { start, TOKEN, type Harness } from './helpers.ts';

const lb = (name: string) => ({
  name,
  listeners: [{ protocol: 'TCP', port: 80, nodePort: 30080 }],
  backendInstanceIds: [],
});

async function post(h: Harness, path: string, body: unknown, caller?: string): Promise<Response> {
  return fetch(`${h.dc.url}/v1${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      ...(caller === undefined ? {} : { [CALLER_HEADER]: caller }),
    },
    body: JSON.stringify(body),
  });
}

describe('devcloud connection resets and mutation log', () => {
  let h: Harness;
  afterEach(() => h.dc.stop());

  it('resetNext drops the connection before the operation runs: nothing changes', async () => {
    h = await start();
    h.dc.setKnobs({ resetNext: 1 });
    await expect(post(h, '/load-balancers', lb('gone'))).rejects.toThrow();
    expect(h.dc.inventory().loadBalancers).toHaveLength(0);
    expect(h.dc.knobs().resetNext).toBe(0);
    expect((await post(h, '/load-balancers', lb('kept'))).status).toBe(201);
    expect(h.dc.inventory().loadBalancers.map((l) => l.name)).toEqual(['kept']);
  });

  it('resetAfterNext runs the write, then drops the answer; reads are not reset', async () => {
    h = await start();
    h.dc.setKnobs({ resetAfterNext: 1 });
    expect((await h.api.get('/zones')).status).toBe(200);
    await expect(post(h, '/load-balancers', lb('made'))).rejects.toThrow();
    expect(h.dc.inventory().loadBalancers.map((l) => l.name)).toEqual(['made']);
    expect((await post(h, '/load-balancers', lb('made'))).status).toBe(409);
  });

  it('records each successful write with its caller and arrival time, not failed ones or reads', async () => {
    h = await start();
    const before = Date.now();
    await post(h, '/load-balancers', lb('a'), 'replica-1_abc');
    await post(h, '/load-balancers', lb('a'), 'replica-2_def');
    await h.api.get('/load-balancers');
    await h.api.del('/load-balancers/a');
    const mutations = h.dc.mutations();
    expect(mutations.map((m) => [m.op, m.caller, m.target, m.status])).toEqual([
      ['createLoadBalancer', 'replica-1_abc', 'POST /v1/load-balancers', 201],
      ['deleteLoadBalancer', '', 'DELETE /v1/load-balancers/a', 204],
    ]);
    expect(mutations[0]!.at).toBeGreaterThanOrEqual(before);
    const overHttp = await h.admin.get<{ items: unknown[] }>('/admin/mutations');
    expect(overHttp.body.items).toHaveLength(2);
    expect((await h.admin.del('/admin/mutations')).status).toBe(204);
    expect(h.dc.mutations()).toEqual([]);
  });

  it('dates a delayed write by its arrival', async () => {
    h = await start({ knobs: { latencyByKind: { write: 300 } } });
    const sent = Date.now();
    await post(h, '/load-balancers', lb('slow'), 'r');
    expect(h.dc.mutations()[0]!.at - sent).toBeLessThan(150);
  });
});

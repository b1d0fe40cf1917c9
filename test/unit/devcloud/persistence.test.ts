import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDevcloud, type Inventory, type LoadBalancer } from '../../../devcloud/src/index.ts';
import type { StateSnapshot } from '../../../devcloud/src/model/cloud.ts';
import { StateWriter } from '../../../devcloud/src/persistence.ts';
import { start, tcp, type Harness } from './helpers.ts';

const cloudPart = ({ counters: _c, knobs: _k, ...rest }: Inventory) => rest;

const emptySnapshot = (): StateSnapshot => ({
  format: 'devcloud-state',
  version: 1,
  savedAt: new Date().toISOString(),
  instances: [],
  loadBalancers: [],
  routes: [],
});

describe('devcloud persistence', () => {
  let dir: string;
  let file: string;
  let h: Harness | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'devcloud-'));
    file = join(dir, 'state.json');
  });
  afterEach(async () => {
    await h?.dc.stop();
    h = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('restarts from the state file with nothing lost, indexes and pools rebuilt', async () => {
    h = await start({ stateFile: file, vipPool: ['203.0.113.0/29'] });
    const a = h.dc.addInstance({ name: 'a', labels: { pool: 'web' } });
    const b = h.dc.addInstance({ name: 'b', zone: 'dc-west-1a' });
    h.dc.stopInstance(b.id);
    const c = h.dc.addInstance({ name: 'c' });
    h.dc.terminateInstance(c.id);
    await h.api.post('/load-balancers', {
      name: 'web',
      listeners: [tcp(80, 30080)],
      backendInstanceIds: [a.id, b.id],
      sourceRanges: ['10.0.0.0/8'],
      tags: { cluster: 'demo' },
    });
    await h.api.put('/load-balancers/web', { listeners: [tcp(80, 30081)], backendInstanceIds: [a.id] });
    await h.api.post('/routes', { name: 'r-a', destinationCidr: '10.244.0.0/24', targetInstanceId: a.id });
    await h.api.post('/routes', { name: 'r-c', destinationCidr: '10.244.2.0/24', targetInstanceId: c.id });
    const before = cloudPart(h.dc.inventory());
    await h.dc.stop();

    h = await start({ stateFile: file, vipPool: ['203.0.113.0/29'] });
    expect(cloudPart(h.dc.inventory())).toEqual(before);
    expect(before.routes.find((r) => r.name === 'r-c')?.blackhole).toBe(true);
    // Indexes: by-name lookups and uniqueness survive.
    expect((await h.api.get(`/instances/by-name/b`)).status).toBe(200);
    expect((await h.admin.post('/admin/instances', { name: 'a' })).status).toBe(409);
    expect(
      (await h.api.post('/routes', { name: 'x', destinationCidr: '10.244.0.0/24', targetInstanceId: a.id })).status,
    ).toBe(409);
    // Pools: the held VIP and internal IPs are not handed out again.
    const next = await h.api.post<LoadBalancer>('/load-balancers', {
      name: 'two',
      listeners: [],
      backendInstanceIds: [],
    });
    expect(next.body.vip).not.toBe(before.loadBalancers[0]!.vip);
    const d = h.dc.addInstance({ name: 'd' });
    const held = [a, b, c].map((i) => i.addresses[0]!.address);
    expect(held).not.toContain(d.addresses[0]!.address);
    // Deleting a restored instance still drops it from the restored LB (reverse index rebuilt).
    h.dc.deleteInstance(a.id);
    expect(h.dc.inventory().loadBalancers.find((lb) => lb.name === 'web')?.backendInstanceIds).toEqual([]);
  });

  it('writes a complete file on its own shortly after a change, and leaves no temp files', async () => {
    h = await start({ stateFile: file, persistDelayMs: 20 });
    h.dc.addInstance({ name: 'early' });
    let text = '';
    for (let n = 0; n < 100 && !text.includes('"early"'); n++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await readFile(file, 'utf8').catch(() => '');
    }
    const saved = JSON.parse(text) as StateSnapshot;
    expect(saved.format).toBe('devcloud-state');
    expect(saved.instances.map((i) => i.name)).toEqual(['early']);
    await h.dc.stop();
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('POST /admin/flush writes at once', async () => {
    h = await start({ stateFile: file, persistDelayMs: 60_000 });
    h.dc.addInstance({ name: 'flushed' });
    expect((await h.admin.post('/admin/flush')).status).toBe(204);
    expect(await readFile(file, 'utf8')).toContain('"flushed"');
  });

  it('starts empty when the file does not exist yet', async () => {
    h = await start({ stateFile: join(dir, 'new.json') });
    expect(h.dc.inventory().instances).toEqual([]);
  });

  it('refuses to start on a damaged file instead of replacing it', async () => {
    await writeFile(file, '{"format": "devcloud-state", "vers');
    await expect(startDevcloud({ stateFile: file })).rejects.toThrow(/not valid JSON/);
    await writeFile(file, JSON.stringify({ format: 'something-else', version: 1 }));
    await expect(startDevcloud({ stateFile: file })).rejects.toThrow(/not a devcloud state file/);
    expect(await readFile(file, 'utf8')).toContain('something-else');
  });

  it('refuses a file whose instances are in zones this devcloud does not have', async () => {
    h = await start({ stateFile: file, zones: [{ name: 'z1', region: 'r1' }] });
    h.dc.addInstance({ name: 'in-z1' });
    await h.dc.stop();
    h = undefined;
    await expect(startDevcloud({ stateFile: file })).rejects.toThrow(/zone "z1"/);
  });
});

describe('StateWriter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'devcloud-writer-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('folds 1,000 quick changes into a couple of writes, the last one complete', async () => {
    let version = 0;
    const writer = new StateWriter(join(dir, 's.json'), 10, () => ({ ...emptySnapshot(), savedAt: String(version) }));
    for (let n = 0; n < 1000; n++) {
      version = n;
      writer.markDirty();
    }
    await writer.flush();
    expect(writer.writes).toBe(1);
    expect(JSON.parse(await readFile(join(dir, 's.json'), 'utf8')).savedAt).toBe('999');
  });

  it('never overlaps writes: changes during a write go into the next one', async () => {
    let snapshots = 0;
    const writer = new StateWriter(join(dir, 's.json'), 0, () => {
      snapshots++;
      return emptySnapshot();
    });
    writer.markDirty();
    await new Promise((r) => setTimeout(r, 5));
    for (let n = 0; n < 100; n++) writer.markDirty();
    await writer.flush();
    expect(snapshots).toBeLessThanOrEqual(3);
    expect(writer.writes).toBe(snapshots);
  });

  it('flush() during a background write does not start a second, overlapping write', async () => {
    const writer = new StateWriter(join(dir, 's.json'), 0, emptySnapshot);
    for (let round = 0; round < 20; round++) {
      writer.markDirty();
      await new Promise((r) => setTimeout(r, 1)); // the timer fires: a write is in flight
      writer.markDirty(); // dirtied during the write: its end schedules another
      await writer.flush();
    }
    await new Promise((r) => setTimeout(r, 20)); // a stray timer would write (and collide) now
    await writer.flush();
    expect(await readdir(dir)).toEqual(['s.json']);
  });

  it('stretches the delay for states that are slow to serialize', async () => {
    const slow = (): StateSnapshot => {
      const until = performance.now() + 25;
      while (performance.now() < until);
      return emptySnapshot();
    };
    const writer = new StateWriter(join(dir, 's.json'), 10, slow);
    expect(writer.delayMs).toBe(10);
    writer.markDirty();
    await writer.flush();
    expect(writer.delayMs).toBeGreaterThanOrEqual(100);
  });

  it('reports a failed write from flush()', async () => {
    const writer = new StateWriter(join(dir, 'missing-dir', 's.json'), 0, emptySnapshot);
    writer.markDirty();
    await expect(writer.flush()).rejects.toThrow(/ENOENT/);
  });
});

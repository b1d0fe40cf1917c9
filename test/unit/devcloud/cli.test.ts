import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../devcloud/src/cli.ts';
import type { StateSnapshot } from '../../../devcloud/src/model/cloud.ts';
import { client } from './helpers.ts';

const MAIN = fileURLToPath(new URL('../../../devcloud/src/main.ts', import.meta.url));

describe('devcloud CLI parsing', () => {
  it('maps every flag to an option', () => {
    const r = parseCli([
      '--port=0',
      '--host=127.0.0.2',
      '--token=T',
      '--admin-token=A',
      '--state-file=/tmp/s.json',
      '--persist-delay-ms=250',
      '--vip-pool=203.0.113.0/24,198.51.100.0/24',
      '--vip-pool=192.0.2.0/24',
      '--internal-cidr=10.9.0.0/16',
      '--zone=z1=r1',
      '--zone=z2=r1',
      '--log',
      '--latency-ms=50',
      '--latency=createLoadBalancer=200',
      '--latency=read=5',
      '--error-rate=0.25',
      '--seed=9',
      '--throttle-rate=100',
      '--throttle-burst=20',
      '--outage',
    ]);
    expect(r).toEqual({
      kind: 'run',
      options: {
        port: 0,
        host: '127.0.0.2',
        token: 'T',
        adminToken: 'A',
        stateFile: '/tmp/s.json',
        persistDelayMs: 250,
        vipPool: ['203.0.113.0/24', '198.51.100.0/24', '192.0.2.0/24'],
        internalCidr: '10.9.0.0/16',
        zones: [
          { name: 'z1', region: 'r1' },
          { name: 'z2', region: 'r1' },
        ],
        logger: true,
        knobs: {
          latencyMs: 50,
          latencyByKind: { createLoadBalancer: 200, read: 5 },
          errorRate: 0.25,
          errorSeed: 9,
          throttle: { ratePerSec: 100, burst: 20 },
          outage: true,
        },
      },
    });
  });

  it('defaults the port to 8990, takes tokens from the environment, derives the burst', () => {
    const r = parseCli(['--throttle-rate', '2.5'], { DEVCLOUD_TOKEN: 'env', DEVCLOUD_ADMIN_TOKEN: 'adm' });
    expect(r).toEqual({
      kind: 'run',
      options: { port: 8990, token: 'env', adminToken: 'adm', knobs: { throttle: { ratePerSec: 2.5, burst: 3 } } },
    });
  });

  it('answers help', () => {
    expect(parseCli(['--help'])).toEqual({ kind: 'help' });
    expect(parseCli(['-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--token', 'T', '--bogus'], '--bogus'],
    [['--token', 'T', 'stray'], 'stray'],
    [[], '--token'],
    [['--token', 'T', '--port', '70000'], '--port'],
    [['--token', 'T', '--port', 'abc'], '--port'],
    [['--token', 'T', '--latency-ms', '-1'], '--latency-ms'],
    [['--token', 'T', '--latency', 'nonsense=5'], '--latency'],
    [['--token', 'T', '--latency', 'read'], '--latency'],
    [['--token', 'T', '--error-rate', '2'], '--error-rate'],
    [['--token', 'T', '--seed', '1.5'], '--seed'],
    [['--token', 'T', '--vip-pool', '10.0.0.0/8,10.1.0.0/16'], '--vip-pool'],
    [['--token', 'T', '--vip-pool', '2001:db8::/64'], '--vip-pool'],
    [['--token', 'T', '--internal-cidr', 'nope'], '--internal-cidr'],
    [['--token', 'T', '--zone', 'z1'], '--zone'],
    [['--token', 'T', '--zone', 'z1=a', '--zone', 'z1=b'], '--zone'],
    [['--token', 'T', '--throttle-burst', '5'], '--throttle-burst'],
    [['--token', 'T', '--persist-delay-ms', 'soon'], '--persist-delay-ms'],
  ])('%j is an error naming %s', (argv, flag) => {
    const r = parseCli(argv);
    expect(r.kind).toBe('error');
    if (r.kind === 'error') expect(r.message).toContain(flag);
  });
});

describe('devcloud command', () => {
  it('--help prints usage and exits 0', () => {
    const r = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--state-file');
    expect(r.stdout).toContain('--error-rate');
  });

  it('a bad flag exits 2 naming the flag', () => {
    const r = spawnSync(process.execPath, [MAIN, '--token', 'T', '--latency-ms', 'fast'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--latency-ms');
    expect(r.stdout).toBe('');
  });

  it('serves until SIGTERM, then saves its state and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'devcloud-cli-'));
    const stateFile = join(dir, 'state.json');
    const child = spawn(
      process.execPath,
      [MAIN, '--port', '0', '--token', 'T', '--state-file', stateFile, '--persist-delay-ms', '600000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const m = /listening on (http:\/\/\S+) /.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
      });
      const admin = client(url, 'T');
      expect((await admin.post('/admin/instances', { name: 'from-cli' })).status).toBe(201);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const saved = JSON.parse(await readFile(stateFile, 'utf8')) as StateSnapshot;
      expect(saved.instances.map((i) => i.name)).toEqual(['from-cli']);
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});

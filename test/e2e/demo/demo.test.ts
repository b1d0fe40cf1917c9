// `npm run demo` is the README's first command: run it (with --once) exactly as a user would and check what it
// promises: nodes initialized by `wasm-ccm dev` with devcloud, an external IP, the hot swap to v2 through --watch,
// and nothing left running afterwards.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DEMO = join(import.meta.dirname, '..', '..', '..', 'demo', 'main.ts');

function runDemo(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DEMO, '--once'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('npm run demo', () => {
  it('initializes nodes, prints an external IP, hot-swaps to v2, and cleans up', async () => {
    const { code, out } = await runDemo();
    expect(code, out).toBe(0);
    expect(out).toMatch(/node demo-node-1 initialized: devcloud:\/\/i-[0-9a-f]+, dc\.large, zone dc-east-1a/);
    const ip = /demo\/web EXTERNAL-IP (\d+\.\d+\.\d+\.\d+)/.exec(out)?.[1];
    expect(ip, out).toBeDefined();
    expect(out).toContain('provider devcloud 1.0.0 from');
    expect(out).toMatch(/wasm-ccm swapped it in: 1\.0\.0 -> 2\.0\.0/);
    expect(out).toContain(`EXTERNAL-IP still ${ip}`);
    expect(out).toContain('done: everything the demo started is stopped and removed');
    const dir = /log: (\S+)\/wasm-ccm\.log/.exec(out)?.[1];
    expect(dir, out).toBeDefined();
    expect(existsSync(dir ?? '')).toBe(false);
    const kubeconfig = /kubeconfig: (\S+)\/admin\.kubeconfig/.exec(out)?.[1];
    expect(kubeconfig === undefined || !existsSync(kubeconfig)).toBe(true);
  }, 240_000);
});

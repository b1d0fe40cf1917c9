// scripts/build-helm.sh: a warm cache answers with the binary's path without Go; a cold one without Go says so.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../support/chart-model.ts';

const script = join(ROOT, 'scripts', 'build-helm.sh');
const scratch = mkdtempSync(join(tmpdir(), 'wasm-ccm-build-helm-'));
const NO_GO_PATH = '/usr/bin:/bin';

function run(cache: string): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync('bash', [script], {
    env: { PATH: NO_GO_PATH, HOME: scratch, WASM_CCM_CACHE: cache },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('scripts/build-helm.sh', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('says Go is missing when the cache is cold and Go is not on PATH', () => {
    const res = run(join(scratch, 'cold'));
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('Go is not installed');
    expect(res.stdout).toBe('');
  });

  it('answers with the cached binary, keyed by version and go.mod/go.sum, without Go', () => {
    const module = join(ROOT, 'scripts', 'helm');
    const version = /helm\.sh\/helm\/v4 (v[\d.]+)$/m.exec(readFileSync(join(module, 'go.mod'), 'utf8'))?.[1];
    const hash = createHash('sha256')
      .update(readFileSync(join(module, 'go.mod')))
      .update(readFileSync(join(module, 'go.sum')))
      .digest('hex')
      .slice(0, 10);
    const cache = join(scratch, 'warm');
    mkdirSync(join(cache, 'bin'), { recursive: true });
    const binary = join(cache, 'bin', `helm-${version}-${hash}`);
    writeFileSync(binary, '#!/bin/sh\n');
    chmodSync(binary, 0o755);
    const res = run(cache);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(binary);
    expect(res.stderr).toContain('cached');
  });
});

// The builds of Go tools from the module proxy (the control plane; the upstream AWS CCM) must fail with a message
// that names the problem, not a Go stack of errors.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'wasm-ccm-build-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(script: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const path = join(import.meta.dirname, '..', '..', 'scripts', script);
  const res = spawnSync('bash', [path], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: res.status, stderr: res.stderr };
}

describe.each([
  ['build-controlplane.sh', /building etcd failed \(is the Go module proxy reachable\? GOPROXY=off\)/],
  ['build-aws-peer.sh', /building the AWS CCM failed \(is the Go module proxy reachable\? GOPROXY=off\)/],
])('scripts/%s', (script, proxyFailure) => {
  it('says Go is missing when it is not on PATH', () => {
    const res = run(script, { PATH: '/usr/bin:/bin', HOME: scratch, WASM_CCM_CACHE: join(scratch, 'cache') });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('Go is not installed');
  });

  it('names the module proxy when a cold build cannot download modules', () => {
    const res = run(script, {
      ...process.env,
      WASM_CCM_CACHE: join(scratch, 'cache'),
      GOMODCACHE: join(scratch, 'gomod'),
      GOCACHE: join(scratch, 'gocache'),
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(proxyFailure);
  });
});

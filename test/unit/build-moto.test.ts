// scripts/build-moto.sh: the venv is keyed by moto's version and the pin list, a complete venv is reused without
// touching PyPI, and every failure names its cause and leaves no half-built venv behind.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'wasm-ccm-build-moto-test-'));
// A copy of the script in a tree of its own, so the test can change the pin list it reads.
const root = join(scratch, 'root');
const pins = join(root, 'lab', 'peers', 'moto', 'requirements.txt');
const cache = join(scratch, 'cache');

function run(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync('bash', [join(root, 'scripts', 'build-moto.sh'), ...args], {
    env: { ...process.env, WASM_CCM_CACHE: cache, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function venvDir(): string {
  const res = run(['--print-dir']);
  expect(res.status).toBe(0);
  return res.stdout.trim();
}

describe('scripts/build-moto.sh', () => {
  beforeEach(() => {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(join(root, 'scripts'), { recursive: true });
    mkdirSync(join(root, 'lab', 'peers', 'moto'), { recursive: true });
    copyFileSync(join(repo, 'scripts', 'build-moto.sh'), join(root, 'scripts', 'build-moto.sh'));
    copyFileSync(join(repo, 'lab', 'peers', 'moto', 'requirements.txt'), pins);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('keys the venv by the pinned moto version and the hash of the pin list', () => {
    const version = /^moto\[server\]==(\S+)$/m.exec(readFileSync(pins, 'utf8'))?.[1];
    const first = venvDir();
    expect(first).toMatch(new RegExp(`^${cache}/venv/moto-${version?.replaceAll('.', '\\.')}-[0-9a-f]{10}$`));
    expect(venvDir()).toBe(first);
    writeFileSync(pins, `${readFileSync(pins, 'utf8')}# a changed pin list\n`);
    expect(venvDir()).not.toBe(first);
  });

  it('reuses a complete venv without installing, and points venv/moto at it', () => {
    const dir = venvDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.complete'), '');
    // An unreachable index proves nothing is downloaded.
    const res = run([], { PIP_INDEX_URL: 'http://127.0.0.1:9/simple' });
    expect(res.status).toBe(0);
    expect(res.stdout).toContain(`cached at ${dir}`);
    expect(readlinkSync(join(cache, 'venv', 'moto'))).toBe(dir.split('/').pop());
  });

  it('says Python is missing when the interpreter is not there', () => {
    const res = run([], { WASM_CCM_PYTHON: join(scratch, 'no-python') });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('is not installed (need Python >= 3.9');
  });

  it('refuses a pin list that does not pin moto[server]', () => {
    writeFileSync(pins, 'moto>=5\n');
    const res = run();
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('does not pin moto[server]==<version>');
  });

  it('names PyPI when a cold install cannot download, and leaves no venv behind', () => {
    const dir = venvDir();
    const res = run([], { PIP_INDEX_URL: 'http://127.0.0.1:9/simple', PIP_RETRIES: '0', PIP_TIMEOUT: '1' });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(
      /installing moto \S+ failed \(is PyPI reachable\? PIP_INDEX_URL=http:\/\/127\.0\.0\.1:9\/simple\)/,
    );
    expect(existsSync(dir)).toBe(false);
    // Making the venv (pip's own install into it) takes tens of seconds on a loaded machine, before pip fails.
  }, 90_000);
});

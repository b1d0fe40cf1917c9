// What `npx wasm-ccm` does to the CCM on SIGTERM, without npm: a shell that forked the CCM is sent SIGTERM and dies
// without passing it on (dash does; `; true` keeps any shell from exec'ing). The watch sees its parent go and
// says so; a process not started by npm does not watch.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startedByNpm } from '../../../host/src/app/npm-parent.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-npm-parent-'));
const CHILD = join(dir, 'child.ts');
writeFileSync(
  CHILD,
  `import { watchNpmParent } from ${JSON.stringify(new URL('../../../host/src/app/npm-parent.ts', import.meta.url).pathname)};
watchNpmParent((which) => { console.log('gone: ' + which); process.exit(0); });
console.log('watching from ' + process.ppid);
setTimeout(() => { console.log('never stopped'); process.exit(1); }, 20_000);
`,
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the npm parent watch', () => {
  it('reports the shell between npm and the CCM gone when the shell dies of SIGTERM', async () => {
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${CHILD}"; true`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const ended = new Promise<void>((resolve) => shell.stdout.on('end', resolve));
    await new Promise<void>((resolve) =>
      shell.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('watching from')) resolve();
      }),
    );
    shell.kill('SIGTERM');
    // The child holds the pipe until it exits: the end of the output is its exit.
    await ended;
    expect(out).toBe(`watching from ${shell.pid}\ngone: parent process ${shell.pid}\n`);
  }, 30_000);

  it('watches only under npm, which sets npm_command', () => {
    expect(startedByNpm({ npm_command: 'exec' })).toBe(true);
    expect(startedByNpm({ npm_command: 'run-script' })).toBe(true);
    expect(startedByNpm({})).toBe(false);
  });
});

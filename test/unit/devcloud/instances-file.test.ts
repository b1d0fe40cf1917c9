import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCli } from '../../../devcloud/src/cli.ts';
import { parseInstancesFile } from '../../../devcloud/src/instances-file.ts';

const MAIN = fileURLToPath(new URL('../../../devcloud/src/main.ts', import.meta.url));

describe('devcloud --instances and a command after --', () => {
  const dir = mkdtempSync(join(tmpdir(), 'devcloud-instances-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('parses the file and the command', () => {
    expect(parseCli(['--token=T', '--instances=i.json', '--', 'npm', 'run', 'kit'])).toEqual({
      kind: 'run',
      options: { token: 'T', port: 8990, knobs: {} },
      instancesFile: 'i.json',
      command: ['npm', 'run', 'kit'],
    });
    expect(parseCli(['--token=T', '--'])).toEqual({ kind: 'error', message: '--: name the command to run after it' });
  });

  it('refuses a malformed instances document, naming the place', () => {
    expect(parseInstancesFile('{"instances": [{"name": "a", "state": "running"}]}', 'f')).toEqual([
      { name: 'a', state: 'running' },
    ]);
    expect(() => parseInstancesFile('[]', 'f')).toThrow('--instances: f must be {"instances": [...]}');
    expect(() => parseInstancesFile('{"instances": [{"nam": "a"}]}', 'f')).toThrow('instances[0].nam: unknown field');
    expect(() => parseInstancesFile('{"instances": [{"name": "a", "state": "gone"}]}', 'f')).toThrow(
      'instances[0].state: "running" or "stopped"',
    );
    expect(() => parseInstancesFile('{', 'f')).toThrow('--instances: f is not JSON');
  });

  it('serves the instances while the command runs, and exits with its status', () => {
    const file = join(dir, 'instances.json');
    writeFileSync(
      file,
      JSON.stringify({
        instances: [
          { id: 'conformance-a', name: 'node-a' },
          { name: 'node-c', state: 'stopped' },
        ],
      }),
    );
    const probe =
      "fetch(process.env.DEVCLOUD_URL + '/v1/instances', { headers: { authorization: 'Bearer T' } })" +
      '.then((r) => r.json()).then((b) => { console.log(b.items.map((i) => i.name + ":" + i.state).join(",")); process.exit(7); })';
    const got = spawnSync(
      process.execPath,
      [MAIN, '--port=0', '--token=T', `--instances=${file}`, '--', process.execPath, '-e', probe],
      {
        encoding: 'utf8',
      },
    );
    expect(got.stdout).toContain('2 instances from');
    expect(got.stdout).toContain('node-a:running,node-c:stopped');
    expect(got.status).toBe(7);
  });

  it('exits 2 naming the instance devcloud refuses', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ instances: [{ name: 'Bad_Name' }] }));
    const got = spawnSync(process.execPath, [MAIN, '--port=0', '--token=T', `--instances=${file}`, '--', 'true'], {
      encoding: 'utf8',
    });
    expect(got.stderr).toContain('devcloud: --instances: instances[0].name: must be a DNS subdomain');
    expect(got.status).toBe(2);
  });
});

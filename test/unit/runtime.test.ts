import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Version = [number, number, number];

/** The floor of an engines.node range written ">=major[.minor[.patch]]". */
function engineFloor(packageJson: URL): Version {
  const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { engines?: { node?: string } };
  const range = manifest.engines?.node ?? '';
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  if (!match) throw new Error(`${packageJson.pathname}: engines.node is ${JSON.stringify(range)}, not ">=x.y.z"`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

const atLeast = (version: Version, floor: Version): boolean => {
  const at = version.findIndex((part, i) => part !== floor[i]);
  return at < 0 || (version[at] as number) > (floor[at] as number);
};

describe('runtime', () => {
  const floor = engineFloor(new URL('../../package.json', import.meta.url));

  it('runs on the Node.js that package.json engines asks for', () => {
    const running = process.versions.node.split('.').map(Number) as Version;
    expect(atLeast(running, floor), `Node ${process.versions.node} below engines ${floor.join('.')}`).toBe(true);
    expect(atLeast([23, 0, 0], [24, 0, 0])).toBe(false);
  });

  // client-node 2.x runs on undici 8: the engines floor must be at least undici's.
  it('asks for at least the Node.js undici needs', () => {
    const undici = engineFloor(new URL('../../node_modules/undici/package.json', import.meta.url));
    expect(atLeast(floor, undici), `engines ${floor.join('.')} below undici's ${undici.join('.')}`).toBe(true);
  });

  it('loads @kubernetes/client-node', async () => {
    const k8s = await import('@kubernetes/client-node');
    expect(typeof k8s.KubeConfig).toBe('function');
  });
});

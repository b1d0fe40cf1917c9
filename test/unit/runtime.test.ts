import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on Node >= 22 (client-node 2.x needs undici 8, which needs Node >= 22.19)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('loads @kubernetes/client-node', async () => {
    const k8s = await import('@kubernetes/client-node');
    expect(typeof k8s.KubeConfig).toBe('function');
  });
});

import { describe, expect, it } from 'vitest';
import { resolveControllers } from '../../../host/src/options/controllers.ts';

const sorted = (s: Set<string>) => [...s].sort();

describe('--controllers', () => {
  it('* enables all four', () => {
    expect(sorted(resolveControllers(['*']))).toEqual(['cloud-node', 'cloud-node-lifecycle', 'route', 'service']);
  });
  it('-name disables one of *', () => {
    expect(sorted(resolveControllers(['*', '-route']))).toEqual(['cloud-node', 'cloud-node-lifecycle', 'service']);
  });
  it('names alone enable only those', () => {
    expect(sorted(resolveControllers(['service']))).toEqual(['service']);
    expect(sorted(resolveControllers([]))).toEqual([]);
  });
  it('the first entry naming a controller decides', () => {
    expect(sorted(resolveControllers(['-service', 'service', '*']))).toEqual([
      'cloud-node',
      'cloud-node-lifecycle',
      'route',
    ]);
  });
  it('accepts the newer upstream names as aliases', () => {
    expect(sorted(resolveControllers(['service-lb-controller', 'node-route-controller']))).toEqual([
      'route',
      'service',
    ]);
  });
  it('refuses an unknown name, naming it', () => {
    expect(() => resolveControllers(['*', 'nodeipam'])).toThrow('unknown controller "nodeipam"');
    expect(() => resolveControllers(['-bogus'])).toThrow('unknown controller "-bogus"');
  });
});

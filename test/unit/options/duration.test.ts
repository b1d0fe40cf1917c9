import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../host/src/util/duration.ts';

describe('parseDuration (Go syntax)', () => {
  it.each([
    ['5s', 5000],
    ['300ms', 300],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['0', 0],
    ['10us', 0.01],
    ['-2s', -2000],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each(['', '5', 's', '5x', '1m30', '--5s', '5 s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });

  it('formats the upstream defaults as Go prints them', () => {
    expect(formatDuration(5000)).toBe('5s');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(250)).toBe('250ms');
  });
});

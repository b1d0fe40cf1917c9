import { describe, expect, it } from 'vitest';
import { formatMicroTime, parseKubeTime } from '../../../host/src/kube/leaderelection/microtime.ts';
import {
  decide,
  type LeaderElectionRecord,
  observe,
  recordFromSpec,
  releasedRecord,
  specFromRecord,
} from '../../../host/src/kube/leaderelection/record.ts';

describe('MicroTime', () => {
  it('formats with exactly six fractional digits in UTC', () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678000Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 0))).toBe('2026-01-02T03:04:05.000000Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 7) + 0.25)).toBe('2026-01-02T03:04:05.007250Z');
    expect(formatMicroTime(new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)))).toBe('1999-12-31T23:59:59.999000Z');
    expect(() => formatMicroTime(Number.NaN)).toThrow(RangeError);
  });

  it('parses every RFC 3339 form and Date objects to epoch ms', () => {
    const t = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(parseKubeTime('2026-01-02T03:04:05Z')).toBe(t);
    expect(parseKubeTime('2026-01-02T03:04:05.123456Z')).toBeCloseTo(t + 123.456, 6);
    expect(parseKubeTime('2026-01-02T03:04:05.123456789Z')).toBeCloseTo(t + 123.456789, 6);
    expect(parseKubeTime('2026-01-02T03:04:05.5Z')).toBe(t + 500);
    expect(parseKubeTime('2026-01-02T05:04:05+02:00')).toBe(t);
    expect(parseKubeTime('2026-01-02T01:34:05.000-0130')).toBe(t);
    expect(parseKubeTime(new Date(t))).toBe(t);
  });

  it('round-trips what it formats', () => {
    const t = Date.UTC(2026, 5, 30, 12, 0, 0, 42);
    expect(parseKubeTime(formatMicroTime(t))).toBe(t);
  });

  it('answers undefined for anything unreadable', () => {
    for (const bad of [
      undefined,
      null,
      42,
      '',
      'yesterday',
      '2026-01-02',
      '2026-01-02T03:04:05',
      new Date(Number.NaN),
    ]) {
      expect(parseKubeTime(bad)).toBeUndefined();
    }
  });
});

const DUR = 15;
const T0 = Date.UTC(2026, 0, 1);

function rec(partial: Partial<LeaderElectionRecord>): LeaderElectionRecord {
  return {
    holderIdentity: 'other',
    leaseDurationSeconds: DUR,
    acquireTime: T0 - 60_000,
    renewTime: T0 - 1_000,
    leaseTransitions: 3,
    ...partial,
  };
}

describe('leader election decisions', () => {
  it('creates the Lease when there is none, with 0 transitions', () => {
    const { decision } = decide({
      identity: 'me',
      now: T0,
      leaseDurationSeconds: DUR,
      current: undefined,
      previous: undefined,
    });
    expect(decision).toEqual({
      action: 'create',
      record: { holderIdentity: 'me', leaseDurationSeconds: DUR, acquireTime: T0, renewTime: T0, leaseTransitions: 0 },
    });
  });

  it('waits while another holder is within its lease duration of our first sight of that content', () => {
    const current = rec({});
    const first = decide({ identity: 'me', now: T0, leaseDurationSeconds: DUR, current, previous: undefined });
    expect(first.decision).toEqual({ action: 'wait', holder: 'other', expiresAt: T0 + 15_000 });
    // The same content 14.9 s later: still held.
    const later = decide({
      identity: 'me',
      now: T0 + 14_900,
      leaseDurationSeconds: DUR,
      current,
      previous: first.observation,
    });
    expect(later.decision.action).toBe('wait');
    expect(later.observation).toBe(first.observation);
  });

  it('judges expiry by our observation time, not the renewTime written by another clock', () => {
    // The holder's clock is an hour behind: its renewTime looks ancient, but we only just saw it.
    const current = rec({ renewTime: T0 - 3_600_000 });
    const { decision } = decide({ identity: 'me', now: T0, leaseDurationSeconds: DUR, current, previous: undefined });
    expect(decision.action).toBe('wait');
  });

  it('takes over an unchanged Lease once lease duration has passed since we saw it, counting a transition', () => {
    const current = rec({});
    const first = decide({ identity: 'me', now: T0, leaseDurationSeconds: DUR, current, previous: undefined });
    const { decision } = decide({
      identity: 'me',
      now: T0 + 15_000,
      leaseDurationSeconds: DUR,
      current,
      previous: first.observation,
    });
    expect(decision).toEqual({
      action: 'update',
      record: {
        holderIdentity: 'me',
        leaseDurationSeconds: DUR,
        acquireTime: T0 + 15_000,
        renewTime: T0 + 15_000,
        leaseTransitions: 4,
      },
    });
  });

  it('restarts the expiry clock whenever the holder renews', () => {
    const first = decide({ identity: 'me', now: T0, leaseDurationSeconds: DUR, current: rec({}), previous: undefined });
    const renewed = rec({ renewTime: T0 + 2_000 });
    const second = decide({
      identity: 'me',
      now: T0 + 14_000,
      leaseDurationSeconds: DUR,
      current: renewed,
      previous: first.observation,
    });
    expect(second.observation?.at).toBe(T0 + 14_000);
    const third = decide({
      identity: 'me',
      now: T0 + 20_000,
      leaseDurationSeconds: DUR,
      current: renewed,
      previous: second.observation,
    });
    expect(third.decision).toEqual({ action: 'wait', holder: 'other', expiresAt: T0 + 29_000 });
  });

  it('acquires a released Lease (empty holder) at once', () => {
    const released = releasedRecord(rec({}), T0);
    expect(released).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: T0,
      renewTime: T0,
      leaseTransitions: 3,
    });
    const { decision } = decide({
      identity: 'me',
      now: T0,
      leaseDurationSeconds: DUR,
      current: released,
      previous: undefined,
    });
    expect(decision).toMatchObject({ action: 'update', record: { holderIdentity: 'me', leaseTransitions: 4 } });
  });

  it('renews its own Lease keeping acquireTime and the transition count', () => {
    const current = rec({ holderIdentity: 'me', acquireTime: T0 - 99_000 });
    const { decision } = decide({
      identity: 'me',
      now: T0,
      leaseDurationSeconds: DUR,
      current,
      previous: observe(current, T0 - 2_000),
    });
    expect(decision).toEqual({
      action: 'update',
      record: {
        holderIdentity: 'me',
        leaseDurationSeconds: DUR,
        acquireTime: T0 - 99_000,
        renewTime: T0,
        leaseTransitions: 3,
      },
    });
  });

  it('maps records to LeaseSpec JSON with MicroTime strings and back, tolerating Dates and missing fields', () => {
    const record = rec({ holderIdentity: 'me' });
    const spec = specFromRecord(record);
    expect(spec).toEqual({
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: '2025-12-31T23:59:00.000000Z',
      renewTime: '2025-12-31T23:59:59.000000Z',
      leaseTransitions: 3,
    });
    expect(recordFromSpec(spec)).toEqual(record);
    expect(recordFromSpec({ renewTime: new Date(T0) as unknown as string })).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: T0,
      leaseTransitions: 0,
    });
    expect(recordFromSpec(undefined).holderIdentity).toBe('');
  });
});

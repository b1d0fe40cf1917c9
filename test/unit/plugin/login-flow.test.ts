// The session keeper (broker/login-flow.ts) on a fake flow and a fake clock: one login in flight for every request
// that waits, renewal ahead of expiry while the old session serves, one login for all the requests a 401 refused,
// backoff after failed logins with an error naming the credential and the status, and the sessions' secrets kept for
// redaction until they end.
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../host/src/plugin/broker/broker-error.ts';
import {
  type HeldSession,
  LoginError,
  type LoginFlow,
  type LoginSession,
  renewalTime,
  SessionKeeper,
} from '../../../host/src/plugin/broker/login-flow.ts';
import { recordingLogger } from './support/recording-logger.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A flow whose logins the test settles one by one; each session's token is `token-<n>`. */
class FakeFlow implements LoginFlow<{ n: number }> {
  readonly kind = 'fake';
  readonly target = 'fake https://id.example';
  readonly secrets = ['the-password'];
  lifetimeMs = HOUR;
  readonly pending: Array<PromiseWithResolvers<LoginSession<{ n: number }>>> = [];
  sent = 0;

  logIn(): Promise<LoginSession<{ n: number }>> {
    this.sent++;
    const next = Promise.withResolvers<LoginSession<{ n: number }>>();
    this.pending.push(next);
    return next.promise;
  }

  /** Settles the oldest pending login with a session. */
  succeed(): void {
    const n = this.sent;
    this.take().resolve({
      headers: { 'x-token': `token-${n}` },
      lifetimeMs: this.lifetimeMs,
      secrets: [`token-${n}`],
      data: { n },
    });
  }

  fail(status: number): void {
    this.take().reject(new LoginError(`answered ${status} (the-password is wrong)`, status));
  }

  private take(): PromiseWithResolvers<LoginSession<{ n: number }>> {
    const next = this.pending.shift();
    if (next === undefined) throw new Error('no login is pending');
    return next;
  }
}

function keeper(flow: FakeFlow, clock: { now: number }) {
  const log = recordingLogger();
  const k = new SessionKeeper({
    credential: 'cloud',
    flow,
    exchange: () => Promise.reject(new Error('unused')),
    logger: log.logger,
    now: () => clock.now,
    minBackoffMs: 1_000,
    maxBackoffMs: 4_000,
  });
  return { keeper: k, log };
}

/** Every promise callback queued so far has run (the keeper's settle in a few microtasks). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const token = (held: HeldSession<unknown> | undefined): string | undefined => held?.session.headers['x-token'];

describe('SessionKeeper', () => {
  it('sends one login for every request that waits for a session, and serves the session synchronously after', async () => {
    const flow = new FakeFlow();
    const { keeper: k } = keeper(flow, { now: 0 });
    const waiting = Array.from({ length: 10 }, () => k.current());
    expect(flow.sent).toBe(1);
    flow.succeed();
    const sessions = await Promise.all(waiting);
    expect(new Set(sessions.map(token))).toEqual(new Set(['token-1']));
    const now = k.current();
    expect(now).not.toBeInstanceOf(Promise);
    expect(token(now as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(1);
  });

  it('renews at 3/4 of the lifetime or 5 minutes before the end, whichever comes first', () => {
    expect(renewalTime(0, HOUR)).toBe(45 * MINUTE);
    expect(renewalTime(0, 10 * MINUTE)).toBe(5 * MINUTE);
    expect(renewalTime(0, 8 * MINUTE)).toBe(3 * MINUTE);
    expect(renewalTime(0, 2 * MINUTE)).toBe(0);
    expect(renewalTime(1000, HOUR)).toBe(1000 + 45 * MINUTE);
  });

  it('renews ahead of expiry in the background while the old session serves, and waits once it has ended', async () => {
    const flow = new FakeFlow();
    const clock = { now: 0 };
    const { keeper: k } = keeper(flow, clock);
    const first = k.current();
    flow.succeed();
    await first;
    clock.now = 45 * MINUTE - 1;
    expect(token(k.current() as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(1);
    clock.now = 45 * MINUTE;
    // Due: a renewal goes out, and the old session still answers at once.
    expect(token(k.current() as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(2);
    expect(token(k.current() as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(2);
    flow.succeed();
    await settled();
    expect(token(k.current() as HeldSession)).toBe('token-2');
    // Past the end of token-2 with no renewal: the request waits for a login.
    clock.now = 45 * MINUTE + HOUR;
    const waiting = k.current();
    expect(waiting).toBeInstanceOf(Promise);
    expect(flow.sent).toBe(3);
    flow.succeed();
    expect(token(await waiting)).toBe('token-3');
  });

  it('renews once for all the requests a 401 refused, and hands a newer session to a request refused late', async () => {
    const flow = new FakeFlow();
    const { keeper: k } = keeper(flow, { now: 0 });
    const first = k.current();
    flow.succeed();
    const refused = await first;
    const renewals = Array.from({ length: 5 }, () => k.renew(refused));
    expect(flow.sent).toBe(2);
    flow.succeed();
    const renewed = await Promise.all(renewals);
    expect(new Set(renewed.map(token))).toEqual(new Set(['token-2']));
    // A request that used token-1 and hears 401 only now gets token-2 without another login.
    expect(token(await k.renew(refused))).toBe('token-2');
    expect(flow.sent).toBe(2);
  });

  it('logs in for a 401 at most once a second: a session refused sooner is not renewed', async () => {
    const flow = new FakeFlow();
    const clock = { now: 0 };
    const { keeper: k } = keeper(flow, clock);
    const first = k.current();
    flow.succeed();
    const renewing = k.renew(await first);
    flow.succeed();
    const second = await renewing;
    expect(token(second)).toBe('token-2');
    clock.now = 999;
    expect(await k.renew(second as HeldSession<{ n: number }>)).toBeUndefined();
    expect(flow.sent).toBe(2);
    // Still the session to use: a 401 from one endpoint does not end it for the others.
    expect(token(k.current() as HeldSession)).toBe('token-2');
    clock.now = 1_000;
    const third = k.renew(second as HeldSession<{ n: number }>);
    expect(flow.sent).toBe(3);
    flow.succeed();
    expect(token(await third)).toBe('token-3');
  });

  it('backs off after a failed login: requests fail at once naming the credential and the status, then it tries again', async () => {
    const flow = new FakeFlow();
    const clock = { now: 0 };
    const { keeper: k, log } = keeper(flow, clock);
    const first = k.current() as Promise<HeldSession>;
    flow.fail(401);
    const error = await first.catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ code: 'Network' });
    expect((error as Error).message).toBe(
      "credential 'cloud': login to fake https://id.example failed: answered 401 ([REDACTED] is wrong)",
    );
    expect(log.records.some((r) => r.message === 'login failed' && r.fields.retryInMs === 1000)).toBe(true);
    clock.now = 500;
    expect(() => k.current()).toThrow(/failed: answered 401 .*\(0\.5 s ago; next login in 0\.5 s\)$/);
    expect(flow.sent).toBe(1);
    clock.now = 1_000;
    const second = k.current() as Promise<HeldSession>;
    expect(flow.sent).toBe(2);
    flow.fail(503);
    await expect(second).rejects.toThrow(/answered 503/);
    // Doubled, up to the maximum.
    clock.now = 2_999;
    expect(() => k.current()).toThrow(/next login in 0\.0 s/);
    clock.now = 3_000;
    const third = k.current() as Promise<HeldSession>;
    flow.fail(503);
    await expect(third).rejects.toThrow(/503/);
    clock.now = 3_000 + 3_999;
    expect(() => k.current()).toThrow(/next login/);
    clock.now = 3_000 + 4_000;
    const fourth = k.current() as Promise<HeldSession>;
    flow.succeed();
    expect(token(await fourth)).toBe('token-4');
    expect(flow.sent).toBe(4);
  });

  it('keeps every session it held among its secrets until that session ends', async () => {
    const flow = new FakeFlow();
    const clock = { now: 0 };
    const { keeper: k } = keeper(flow, clock);
    const first = k.current();
    flow.succeed();
    const held = await first;
    expect(k.secrets).toEqual(['the-password', 'token-1']);
    const same = k.secrets;
    expect(k.secrets).toBe(same);
    clock.now = 10 * MINUTE;
    const renewing = k.renew(held);
    flow.succeed();
    await renewing;
    expect(k.secrets).toEqual(['the-password', 'token-1', 'token-2']);
    clock.now = HOUR;
    expect(k.secrets).toEqual(['the-password', 'token-2']);
  });

  it('keeps serving the old session while a renewal ahead of expiry fails, and backs off before the next', async () => {
    const flow = new FakeFlow();
    const clock = { now: 0 };
    const { keeper: k } = keeper(flow, clock);
    const first = k.current();
    flow.succeed();
    await first;
    clock.now = 45 * MINUTE;
    expect(token(k.current() as HeldSession)).toBe('token-1');
    flow.fail(500);
    await settled();
    clock.now += 10;
    expect(token(k.current() as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(2);
    clock.now += 1_000;
    expect(token(k.current() as HeldSession)).toBe('token-1');
    expect(flow.sent).toBe(3);
  });
});

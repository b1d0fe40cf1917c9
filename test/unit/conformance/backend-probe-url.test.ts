// The backend probe's URL is the fixture's template with the plugin's own answers ({lb}, {ingress}) put in: a hostile
// plugin chooses those values and tries to steer the host's GET to another resource or host.
import { describe, expect, it } from 'vitest';
import { CheckFailed, type CheckContext, type SharedState } from '../../../host/src/conformance/check.ts';
import { readBackends } from '../../../host/src/conformance/checks/backend-checks.ts';
import type { BackendProbe } from '../../../host/src/conformance/fixture-backends.ts';

const TEMPLATE = 'http://cloud.example:8990/v1/load-balancers/{lb}/backends?ingress={ingress}';

/** Reads the backends with `lb` as the load balancer's name; resolves to the URL the host asked for, or the failure. */
async function probedUrl(lb: string, ingress = '198.18.0.1'): Promise<string | CheckFailed> {
  const asked: string[] = [];
  const backendProbe: BackendProbe = {
    url: TEMPLATE,
    loadBalancers: undefined,
    path: 'ids',
    identity: 'instanceID',
    addressType: 'InternalIP',
  };
  const state: Partial<SharedState> = {
    lbName: lb,
    lbStatus: { ingress: [{ ip: ingress, hostname: '', ipMode: 'VIP', ports: [] }] },
  };
  const ctx = {
    fixture: { backendProbe, service: { uid: 'u-1' } },
    state,
    hostGet: (url: string) => {
      asked.push(url);
      return Promise.resolve({ status: 200, body: '{"ids":[]}' });
    },
  } as unknown as CheckContext;
  try {
    await readBackends(ctx);
  } catch (err) {
    if (err instanceof CheckFailed) return err;
    throw err;
  }
  expect(asked).toHaveLength(1);
  return asked[0] as string;
}

describe('the backend probe URL', () => {
  it.each(['a/../../admin', 'x@evil.example', 'lb#frag', 'lb?x=1', 'evil.example:80/', '%2e%2E'])(
    'keeps {lb} "%s" inside its path segment',
    async (lb) => {
      const url = new URL((await probedUrl(lb)) as string);
      expect(url.host).toBe('cloud.example:8990');
      expect(decodeURIComponent(url.pathname)).toBe(`/v1/load-balancers/${lb}/backends`);
      expect(url.hash).toBe('');
    },
  );

  it.each(['..', '.'])('refuses {lb} "%s", which the URL would take as a dot segment', async (lb) => {
    const outcome = await probedUrl(lb);
    // Without the refusal the host would GET /v1/backends or /v1/load-balancers/backends instead.
    expect(outcome).toBeInstanceOf(CheckFailed);
    expect((outcome as CheckFailed).message).toMatch(/dot segment/);
  });

  it('keeps {ingress} inside the query', async () => {
    const url = new URL((await probedUrl('lb-1', '1.2.3.4&admin=1#x')) as string);
    expect(url.searchParams.get('ingress')).toBe('1.2.3.4&admin=1#x');
    expect([...url.searchParams.keys()]).toEqual(['ingress']);
  });
});

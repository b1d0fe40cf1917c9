import { afterEach, describe, expect, it } from 'vitest';
import { startDevcloud, type Devcloud } from '../../../devcloud/src/index.ts';
import { ADMIN_TOKEN, client, start, type Harness } from './helpers.ts';

describe('devcloud auth', () => {
  let h: Harness;
  let other: Devcloud | undefined;
  afterEach(async () => {
    await h.dc.stop();
    await other?.stop();
    other = undefined;
  });

  it('answers 401 with a JSON error and WWW-Authenticate when the token is missing', async () => {
    h = await start();
    const res = await client(h.dc.url, null).get('/instances');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 for a wrong token, on cloud and admin endpoints alike', async () => {
    h = await start();
    const wrong = client(h.dc.url, 'not-the-token');
    expect((await wrong.get('/load-balancers')).status).toBe(401);
    expect((await wrong.get('/admin/inventory')).status).toBe(401);
    expect((await wrong.post('/admin/instances', { name: 'n1' })).status).toBe(401);
    expect(h.dc.inventory().instances).toHaveLength(0);
  });

  it('rejects a malformed Authorization header', async () => {
    h = await start();
    const res = await fetch(`${h.dc.url}/v1/zones`, { headers: { authorization: `Basic ${h.dc.token}` } });
    expect(res.status).toBe(401);
  });

  it('keeps admin endpoints closed to the cloud token (403) and opens everything to the admin token', async () => {
    h = await start();
    const denied = await h.api.get('/admin/inventory');
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    expect((await h.admin.get('/admin/inventory')).status).toBe(200);
    expect((await h.admin.get('/zones')).status).toBe(200);
    expect((await h.api.get('/zones')).status).toBe(200);
  });

  it('lets the cloud token open admin endpoints when no admin token is configured', async () => {
    h = await start();
    other = await startDevcloud({ token: 'only' });
    expect(other.adminToken).toBe('only');
    expect((await client(other.url, 'only').get('/admin/inventory')).status).toBe(200);
    expect((await client(other.url, ADMIN_TOKEN).get('/admin/inventory')).status).toBe(401);
  });

  it('generates a token when none is given', async () => {
    h = await start();
    other = await startDevcloud();
    expect(other.token).toMatch(/^[0-9a-f]{32}$/);
    expect((await client(other.url, other.token).get('/zones')).status).toBe(200);
  });

  it('checks the token before saying an endpoint does not exist', async () => {
    h = await start();
    expect((await client(h.dc.url, null).get('/no-such-thing')).status).toBe(401);
    const res = await h.api.get('/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'not_found', message: 'no endpoint GET /v1/no-such-thing' });
  });
});

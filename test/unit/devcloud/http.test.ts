import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { start, TOKEN, type Harness } from './helpers.ts';

describe('devcloud HTTP conventions', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
  });
  afterEach(() => h.dc.stop());

  const raw = (method: string, path: string, body?: string, contentType = 'application/json') =>
    fetch(`${h.dc.url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
      ...(body !== undefined ? { body } : {}),
    });

  it('treats an empty body with Content-Type: application/json as no body', async () => {
    await h.api.post('/load-balancers', { name: 'x', listeners: [], backendInstanceIds: [] });
    expect((await raw('DELETE', '/load-balancers/x')).status).toBe(204);
    const missing = await raw('POST', '/load-balancers');
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: { code: 'invalid_request', message: 'body: must be object', field: 'body' },
    });
  });

  it('answers malformed JSON and prototype-poisoning bodies with 400 invalid_request', async () => {
    const bad = await raw('POST', '/routes', '{"name": ');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const poisoned = await raw('POST', '/routes', '{"name":"r","__proto__":{"admin":true}}');
    expect(poisoned.status).toBe(400);
  });

  it('rejects unknown query parameters, naming them', async () => {
    const res = await h.api.get('/instances?colour=blue');
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('colour');
    expect(res.body.error.message).toContain('querystring');
  });

  it('does not coerce types: a repeated scalar query parameter is a 400', async () => {
    const res = await h.api.get('/instances?name=a&name=b');
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('name');
  });

  it('always answers JSON, even for a wrong method on a known path', async () => {
    const res = await raw('PATCH', '/zones', '{}');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staticCredentials } from '../../../host/src/kube/client/credentials.ts';
import { loadKubeConfig } from '../../../host/src/kube/client/kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kube-credentials-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('staticCredentials', () => {
  it('re-reads a token file on every call and prefers it to a token, as client-go does', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const creds = staticCredentials({ server: 'https://a', token: 'inline', tokenFile: file });
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer first' });
    writeFileSync(file, 'rotated');
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer rotated' });
  });

  it('sends basic auth, or nothing for an anonymous user', async () => {
    const basic = staticCredentials({ server: 'https://a', username: 'u', password: 'p' });
    expect(await basic.authHeaders()).toEqual({ authorization: `Basic ${Buffer.from('u:p').toString('base64')}` });
    expect(await staticCredentials({ server: 'https://a' }).authHeaders()).toEqual({});
  });

  it('gives TLS material from inline data or from files read when a pool is built', async () => {
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, 'CA v1');
    const creds = staticCredentials({
      server: 'https://a',
      ca: { file: caFile },
      cert: { data: Buffer.from('CERT') },
      key: { data: Buffer.from('KEY') },
      tlsServerName: 'apiserver.internal',
    });
    const first = await creds.transport();
    expect(first).toEqual({
      tls: {
        ca: Buffer.from('CA v1'),
        cert: Buffer.from('CERT'),
        key: Buffer.from('KEY'),
        rejectUnauthorized: true,
        servername: 'apiserver.internal',
      },
    });
    writeFileSync(caFile, 'CA v2');
    expect(await creds.transport()).toMatchObject({ tls: { ca: Buffer.from('CA v2') } });
    const insecure = await staticCredentials({ server: 'https://a', insecureSkipTLSVerify: true }).transport();
    expect(insecure).toEqual({ tls: { rejectUnauthorized: false } });
  });
});

describe('loadKubeConfig credentials', () => {
  it('reads a YAML kubeconfig: *-data inline, file paths relative to the kubeconfig, the context user', async () => {
    const sub = mkdtempSync(join(dir, 'yaml-'));
    writeFileSync(join(sub, 'ca.crt'), 'CA FILE');
    writeFileSync(join(sub, 'user.token'), 'file-token');
    const path = join(sub, 'config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: prod',
        '  cluster:',
        '    server: https://prod.example:6443',
        '    certificate-authority: ca.crt',
        '    tls-server-name: kubernetes',
        'users:',
        '- name: other',
        '  user: {token: wrong}',
        '- name: ccm',
        '  user:',
        '    tokenFile: user.token',
        `    client-certificate-data: ${Buffer.from('CERT').toString('base64')}`,
        `    client-key-data: ${Buffer.from('KEY').toString('base64')}`,
        'contexts:',
        '- name: main',
        '  context: {cluster: prod, user: ccm}',
        'current-context: main',
        '',
      ].join('\n'),
    );
    const loaded = loadKubeConfig({ kubeconfig: path, env: {} });
    expect(loaded.server).toBe('https://prod.example:6443');
    expect(await loaded.credentials.authHeaders()).toEqual({ authorization: 'Bearer file-token' });
    expect(await loaded.credentials.transport()).toEqual({
      tls: {
        ca: Buffer.from('CA FILE'),
        cert: Buffer.from('CERT'),
        key: Buffer.from('KEY'),
        rejectUnauthorized: true,
        servername: 'kubernetes',
      },
    });
  });

  it('names a file the kubeconfig refers to that does not exist, at load time', () => {
    const path = join(dir, 'missing-files');
    const write = (user: Record<string, string>, cluster: Record<string, string> = {}) =>
      writeFileSync(
        path,
        JSON.stringify({
          clusters: [{ name: 'c', cluster: { server: 'https://a:6443', ...cluster } }],
          users: [{ name: 'u', user }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
    write({ 'client-certificate': 'nope/cert.pem', 'client-key': 'nope/key.pem' });
    expect(() => loadKubeConfig({ kubeconfig: path, env: {} })).toThrow(
      `kubeconfig-flag: client-certificate ${join(dir, 'nope/cert.pem')} does not exist`,
    );
    write({ tokenFile: '/nowhere/token' });
    expect(() => loadKubeConfig({ kubeconfig: path, env: {} })).toThrow('tokenFile /nowhere/token does not exist');
    write({ token: 't' }, { 'certificate-authority': '/nowhere/ca.crt' });
    expect(() => loadKubeConfig({ kubeconfig: path, env: {} })).toThrow('certificate-authority /nowhere/ca.crt');
  });

  it('hands an exec credential plugin to client-node, loaded only when the credentials are used', async () => {
    const plugin = join(dir, 'exec-plugin.sh');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    };
    writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`);
    chmodSync(plugin, 0o755);
    const path = join(dir, 'exec-config');
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://exec.example:6443' } }],
        users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const loaded = loadKubeConfig({ kubeconfig: path, master: 'https://override:443', env: {} });
    expect(loaded.server).toBe('https://override:443');
    const headers = await loaded.credentials.authHeaders();
    expect(headers.Authorization ?? headers.authorization).toBe('Bearer from-exec');
  });

  it('reads the service account token file again, so a rotated projected token is used', async () => {
    const root = mkdtempSync(join(dir, 'root-'));
    const sa = join(root, '/var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'sa-1');
    writeFileSync(join(sa, 'ca.crt'), 'SA CA');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const loaded = loadKubeConfig({ env, inClusterRoot: root });
    expect(loaded.server).toBe('https://[fd00::1]:443');
    expect(await loaded.credentials.authHeaders()).toEqual({ authorization: 'Bearer sa-1' });
    writeFileSync(join(sa, 'token'), 'sa-2');
    expect(await loaded.credentials.authHeaders()).toEqual({ authorization: 'Bearer sa-2' });
    expect(await loaded.credentials.transport()).toEqual({
      tls: { ca: Buffer.from('SA CA'), rejectUnauthorized: true },
    });
  });
});

describe('what loading the CCM imports', () => {
  const root = new URL('../../../host/src/', import.meta.url).href;
  /** Who imports a module whose specifier `watched` matches while `modules` (under host/src) load, in a fresh Node. */
  function importers(modules: string[], watched: RegExp): string[] {
    const script = `
      import { registerHooks } from 'node:module';
      const importers = [];
      registerHooks({
        resolve(specifier, context, next) {
          if (${watched}.test(specifier)) importers.push(specifier + ' from ' + context.parentURL);
          return next(specifier, context);
        },
      });
      for (const m of ${JSON.stringify(modules)}) await import('${root}' + m);
      console.log(JSON.stringify(importers));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as string[];
  }

  // undici costs ~16 MB of resident memory once it has made a request (its llhttp Wasm parser); the CCM's requests,
  // watches and plugin HTTP go through net/http1, and only typed clients (tests, tools) load it.
  it('loads the CCM (controllers, plugin runtime, server, kubeconfig loader) without importing either', () => {
    const modules = ['app/ccm.ts', 'app/serving.ts', 'kube/client/kubeconfig.ts'];
    expect(importers(modules, /^(@kubernetes\/client-node|undici$)/)).toEqual([]);
  });

  // The server (fastify, ~2.5 MB resident) is loaded when the CCM serves, not with --secure-port=0.
  it('loads the CCM without the HTTP server, which comes with serving', () => {
    expect(importers(['app/ccm.ts'], /^fastify$/)).toEqual([]);
    expect(importers(['app/serving.ts'], /^fastify$/).length).toBeGreaterThan(0);
  });
});

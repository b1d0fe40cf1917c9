import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig, SERVICE_ACCOUNT_DIR } from '../../../host/src/kube/client/kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kube-config-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfigFile(name: string, server: string, context = 'ctx'): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: `${name}-cluster`, cluster: { server } }],
      users: [{ name: `${name}-user`, user: { token: 't' } }],
      contexts: [{ name: context, context: { cluster: `${name}-cluster`, user: `${name}-user` } }],
      'current-context': context,
    }),
  );
  return path;
}

function inClusterRoot(): string {
  const root = mkdtempSync(join(dir, 'root-'));
  const sa = join(root, SERVICE_ACCOUNT_DIR);
  mkdirSync(sa, { recursive: true });
  writeFileSync(join(sa, 'token'), 'sa-token');
  writeFileSync(join(sa, 'ca.crt'), 'not really a CA');
  writeFileSync(join(sa, 'namespace'), 'kube-system');
  return root;
}

describe('loadKubeConfig', () => {
  it('loads an explicit --kubeconfig, ignoring the environment', () => {
    const path = kubeconfigFile('explicit', 'https://explicit:6443');
    const other = kubeconfigFile('env', 'https://env:6443');
    const loaded = loadKubeConfig({ kubeconfig: path, env: { KUBECONFIG: other }, inClusterRoot: inClusterRoot() });
    expect(loaded.source).toBe('kubeconfig-flag');
    expect(loaded.server).toBe('https://explicit:6443');
  });

  it('lets --master override the kubeconfig server', () => {
    const path = kubeconfigFile('m', 'https://from-file:6443');
    const loaded = loadKubeConfig({ kubeconfig: path, master: 'https://override:443', env: {} });
    expect(loaded.server).toBe('https://override:443');
    expect(loaded.credentials.server).toBe('https://override:443');
  });

  it('accepts --master alone', () => {
    const loaded = loadKubeConfig({ master: 'http://127.0.0.1:8080', env: {} });
    expect(loaded).toMatchObject({ source: 'master-only', server: 'http://127.0.0.1:8080' });
  });

  it('uses the service account in a pod (in-cluster) before KUBECONFIG', () => {
    const root = inClusterRoot();
    const loaded = loadKubeConfig({
      env: {
        KUBERNETES_SERVICE_HOST: '10.96.0.1',
        KUBERNETES_SERVICE_PORT: '443',
        KUBECONFIG: kubeconfigFile('x', 'https://x'),
      },
      inClusterRoot: root,
    });
    expect(loaded.source).toBe('in-cluster');
    expect(loaded.server).toBe('https://10.96.0.1:443');
  });

  it('is not in-cluster without the token file even when the service env vars are set', () => {
    const env = {
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBECONFIG: kubeconfigFile('k', 'https://k:1'),
    };
    const loaded = loadKubeConfig({ env, inClusterRoot: join(dir, 'nowhere') });
    expect(loaded.source).toBe('KUBECONFIG');
  });

  it('reads KUBECONFIG, skipping missing files and merging the rest (first file wins the context)', () => {
    const a = kubeconfigFile('a', 'https://a:6443', 'ctx-a');
    const b = kubeconfigFile('b', 'https://b:6443', 'ctx-b');
    const loaded = loadKubeConfig({ env: { KUBECONFIG: [join(dir, 'missing'), a, b].join(delimiter) } });
    expect(loaded.source).toBe('KUBECONFIG');
    expect(loaded.server).toBe('https://a:6443');
    expect([...loaded.contexts].sort()).toEqual(['ctx-a', 'ctx-b']);
  });

  it('fails clearly instead of falling back to http://localhost:8080', () => {
    expect(() => loadKubeConfig({ env: {}, inClusterRoot: join(dir, 'nowhere') })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ env: {}, inClusterRoot: join(dir, 'nowhere') })).toThrow(/--kubeconfig/);
  });

  it('names the problem: missing file, unparsable file, no server, bad URL, unknown context', () => {
    expect(() => loadKubeConfig({ kubeconfig: join(dir, 'absent'), env: {} })).toThrow(
      /--kubeconfig: .*absent does not exist/,
    );
    const garbage = join(dir, 'garbage');
    writeFileSync(garbage, '{{{ not yaml');
    expect(() => loadKubeConfig({ kubeconfig: garbage, env: {} })).toThrow(/cannot load/);
    expect(() => loadKubeConfig({ kubeconfig: kubeconfigFile('noserver', ''), env: {} })).toThrow(
      /cannot load .*noserver/,
    );
    expect(() => loadKubeConfig({ kubeconfig: kubeconfigFile('badurl', 'not a url'), env: {} })).toThrow(/not a URL/);
    const noContext = join(dir, 'nocontext');
    writeFileSync(
      noContext,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [],
        users: [],
        contexts: [],
        'current-context': 'ghost',
      }),
    );
    expect(() => loadKubeConfig({ kubeconfig: noContext, env: {} })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ env: { KUBECONFIG: join(dir, 'gone') } })).toThrow(
      /KUBECONFIG names no existing file/,
    );
  });

  describe('the user', () => {
    function withUser(name: string, user: Record<string, unknown>): string {
      const path = join(dir, name);
      writeFileSync(
        path,
        JSON.stringify({
          clusters: [{ name: 'c', cluster: { server: 'https://api:6443' } }],
          users: [{ name: 'u', user }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      return path;
    }

    it('impersonates as client-go does: Impersonate-* headers beside its own credentials', async () => {
      const path = withUser('imp', {
        token: 'own',
        as: 'jane',
        'as-uid': 'uid-7',
        'as-groups': ['dev', 'ops', 'audit'],
        'as-user-extra': { scopes: ['view', 'edit'], 'team/name ü%': ['a'] },
      });
      const headers = await loadKubeConfig({ kubeconfig: path, env: {} }).credentials.authHeaders();
      const lines = Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]);
      expect(lines).toEqual([
        ['authorization', 'Bearer own'],
        ['impersonate-user', 'jane'],
        ['impersonate-uid', 'uid-7'],
        ['impersonate-group', 'dev'],
        ['impersonate-group', 'ops'],
        ['impersonate-group', 'audit'],
        ['impersonate-extra-scopes', 'view'],
        ['impersonate-extra-scopes', 'edit'],
        ['impersonate-extra-team%2fname%20%c3%bc%25', 'a'],
      ]);
      // One header line each: every spelling is distinct, so none overwrites another.
      expect(Object.keys(headers)).toHaveLength(9);
    });

    it('sends no Impersonate-* header for a user that impersonates no one', async () => {
      const headers = await loadKubeConfig({
        kubeconfig: withUser('plain', { token: 't' }),
        env: {},
      }).credentials.authHeaders();
      expect(headers).toEqual({ authorization: 'Bearer t' });
    });

    it.each([
      [{ token: 't', 'as-user': 'jane' }, /user "u": unknown field "as-user" \(known: token, /],
      [{ token: 't', impersonate: 'jane' }, /user "u": unknown field "impersonate"/],
      [{ token: 't', 'as-groups': ['dev'] }, /user "u": as-groups: needs "as"/],
      [{ token: 't', 'as-uid': 'u1' }, /user "u": as-uid: needs "as"/],
      [{ token: 't', 'as-user-extra': { a: ['b'] } }, /user "u": as-user-extra: needs "as"/],
      [{ token: 't', as: 'jane', 'as-groups': 'dev' }, /user "u": as-groups: expected a list of strings/],
      [{ token: 't', as: 'jane', 'as-groups': ['dev', 7] }, /user "u": as-groups\[1\]: expected a non-empty string/],
      [{ token: 't', as: 'jane\r\nx: y' }, /user "u": as: must not contain control characters/],
      [{ token: 't', as: 'jane', 'as-user-extra': ['a'] }, /user "u": as-user-extra: expected a mapping/],
    ])('refuses the user %j naming the field', (user, message) => {
      const path = withUser('bad-user', user);
      expect(() => loadKubeConfig({ kubeconfig: path, env: {} })).toThrow(KubeConfigError);
      expect(() => loadKubeConfig({ kubeconfig: path, env: {} })).toThrow(message);
    });
  });
});

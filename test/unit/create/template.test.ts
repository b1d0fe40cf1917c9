// create-wasm-ccm-provider's generator: its capability table is the ABI's, a bad command line is a clear error that
// writes nothing, and a project is written with the asked capabilities only. (Building and testing a generated
// project, and the kit against devcloud, is test/e2e/vendor/workflow.test.ts.)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  TEMPLATE_CAPABILITIES,
  parseCapabilities,
} from '../../../packages/create-wasm-ccm-provider/src/capabilities.ts';
import { ABI_MAJOR, ABI_MINOR } from '../../../host/src/abi/index.ts';
import { createMain, relativeTarballs } from '../../../packages/create-wasm-ccm-provider/src/create.ts';
import { type Credential, parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import { SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'ccm-create-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface AbiMethod {
  batchOf?: string | string[];
  name: string;
  capability: string | null;
  request: string;
  response: string;
}

function create(args: string[]): { code: number; out: string } {
  const lines: string[] = [];
  const code = createMain(args, (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

describe('create-wasm-ccm-provider', () => {
  it('templates every method of each capability it writes, with the ABI classes', () => {
    const abi = JSON.parse(readFileSync(join(SDK_DIR, 'abi', 'v1.json'), 'utf8')) as { methods: AbiMethod[] };
    for (const [capability, template] of Object.entries(TEMPLATE_CAPABILITIES)) {
      // Not the batched methods: the SDK's default loops over the per-node one, and a provider overrides it only where
      // its cloud answers many nodes at once.
      const expected = abi.methods
        .filter((m) => m.capability === capability && m.batchOf === undefined)
        .map((m) => ({ name: m.name, request: m.request, response: m.response }));
      expect(template.methods.map(({ name, request, response }) => ({ name, request, response }))).toEqual(expected);
      expect(
        existsSync(
          join(
            import.meta.dirname,
            '../../../packages/create-wasm-ccm-provider/template/assembly',
            `${template.module}.ts`,
          ),
        ),
      ).toBe(true);
    }
  });

  it('refuses unknown and untemplated capabilities, bad names and a non-empty directory, writing nothing', () => {
    expect(() => parseCapabilities('instancesV2,lb')).toThrow('unknown capability "lb"');
    expect(() => parseCapabilities('instances')).toThrow('the template does not write instances');
    const dir = join(scratch, 'refused');
    expect(create([dir, '--capabilities=zones,nope'])).toEqual({
      code: 2,
      out: expect.stringContaining('unknown capability "nope"') as string,
    });
    expect(create([dir, '--name=Bad_Name']).out).toContain('provider name "Bad_Name" must be a DNS label');
    expect(create([dir, '--packages=/nonexistent']).out).toContain('lacks wasm-ccm-plugin-sdk-*.tgz');
    expect(existsSync(dir)).toBe(false);
    expect(create([]).code).toBe(2);
  });

  it('writes a project declaring only the asked capabilities, with registry versions by default', () => {
    const dir = join(scratch, 'edge-cloud');
    const { code, out } = create([dir, '--capabilities=zones,instancesV2']);
    expect(out).toContain('wrote 15 files of the edge-cloud provider (instancesV2, zones)');
    expect(code).toBe(0);
    const index = readFileSync(join(dir, 'assembly', 'index.ts'), 'utf8');
    expect(index).toContain('super(PROVIDER_NAME, "0.1.0", [Capability.instancesV2, Capability.zones]);');
    expect(index).toContain('return zones.getZone(this.config, req, out);');
    expect(index).not.toContain('LoadBalancer');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(pkg.devDependencies?.['@wasm-ccm/plugin-sdk']).toMatch(new RegExp(`^${ABI_MAJOR}\\.${ABI_MINOR}\\.\\d+$`));
    expect(pkg.scripts?.build).toBe('asc --config asconfig.json && wasm-ccm-check-imports build/edge-cloud.wasm');
    expect(existsSync(join(dir, 'assembly', 'loadbalancer.ts'))).toBe(false);
    expect(create([dir]).out).toContain('exists and is not empty');
  });

  it('runs the kit and wasm-ccm dev inside devcloud for a local cloud host, names tarballs relatively', () => {
    const scripts = (dir: string, host: string): Record<string, string> => {
      expect(create([dir, `--cloud-host=${host}`]).code).toBe(0);
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts;
    };
    const local = scripts(join(scratch, 'scripts-local'), '127.0.0.1:8991');
    const devcloud =
      'devcloud --host=127.0.0.1 --port=8991 --token=devcloud-token --instances=conformance/devcloud-instances.json --';
    expect(local.conformance).toBe(`npm run build && ${devcloud} ${local.kit}`);
    expect(local.dev).toMatch(
      new RegExp(`^npm run build && ${devcloud} wasm-ccm dev --plugin=build/scripts-local\\.wasm .* --watch$`),
    );
    const instances = JSON.parse(
      readFileSync(join(scratch, 'scripts-local', 'conformance', 'devcloud-instances.json'), 'utf8'),
    ) as { instances: { name: string }[] };
    expect(instances.instances.map((i) => i.name)).toEqual(['node-a', 'node-b', 'node-c']);
    const remote = scripts(join(scratch, 'scripts-remote'), 'api.mycloud.example');
    expect(remote.conformance).toBe(`npm run build && ${remote.kit}`);
    const tarballs = { sdk: '/r/sdk.tgz', ccm: '/r/ccm.tgz', devcloud: '/r/dc.tgz' };
    expect(relativeTarballs('/home/v/project', tarballs)).toEqual({
      sdk: '../../../r/sdk.tgz',
      ccm: '../../../r/ccm.tgz',
      devcloud: '../../../r/dc.tgz',
    });
  });

  it('points the conformance files at a local cloud over http, with an insecure credential, and at others over https', () => {
    const files = (host: string): { url: string; probe: string; credentials: Credential[] } => {
      const dir = join(scratch, `cloud-at-${host.replace(/[^a-z0-9]/g, '-')}`);
      expect(create([dir, `--cloud-host=${host}`]).code).toBe(0);
      const text = readFileSync(join(dir, 'conformance', 'credentials.json'), 'utf8');
      return {
        url: (JSON.parse(readFileSync(join(dir, 'conformance', 'cloud.json'), 'utf8')) as { url: string }).url,
        probe: readFileSync(join(dir, 'conformance', 'fixture.yaml'), 'utf8'),
        // As the host reads it: an insecure entry for a host that is not loopback would be refused here.
        credentials: parseCredentialFile(text, 'credentials.json'),
      };
    };
    const local = files('127.0.0.1:8990');
    expect(local.url).toBe('http://127.0.0.1:8990');
    expect(local.credentials[0]?.insecure).toBe(true);
    const remote = files('api.mycloud.example');
    expect(remote.url).toBe('https://api.mycloud.example');
    expect(remote.probe).toContain("url: 'https://api.mycloud.example/v1/load-balancers/{lb}'");
    expect(remote.credentials[0]?.insecure).toBe(false);
  });
});

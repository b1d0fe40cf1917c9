// The build refuses a provider that declares a capability without overriding each of its methods, naming them
// (plugin-sdk/tools/capability-check.ts, loaded by the SDK's preset).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompileError, compileAssemblyScript } from '../../../plugin-sdk/tools/compile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'ccm-sdk-capabilities-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LB_METHODS = [
  ['getLoadBalancer', 'GetLoadBalancerRequest', 'GetLoadBalancerResponse'],
  ['getLoadBalancerName', 'GetLoadBalancerNameRequest', 'GetLoadBalancerNameResponse'],
  ['ensureLoadBalancer', 'EnsureLoadBalancerRequest', 'EnsureLoadBalancerResponse'],
  ['updateLoadBalancer', 'UpdateLoadBalancerRequest', 'UpdateLoadBalancerResponse'],
  ['ensureLoadBalancerDeleted', 'EnsureLoadBalancerDeletedRequest', 'EnsureLoadBalancerDeletedResponse'],
] as const;

/** A provider declaring `capabilities` (as written in super()) and overriding `methods`, in a base class if asked. */
function provider(file: string, capabilities: string, methods: readonly string[], viaBase = false): string {
  const defs = LB_METHODS.filter(([m]) => methods.includes(m)).map(
    ([m, req, res]) => `  ${m}(req: ${req}, out: ${res}): PluginError | null { return null; }`,
  );
  const types = LB_METHODS.flatMap(([, req, res]) => [req, res]).join(', ');
  const source = [
    `import { Capability, PluginError, Provider, registerProvider, ${types} } from "@wasm-ccm/plugin-sdk";`,
    'export * from "@wasm-ccm/plugin-sdk/exports";',
    viaBase ? `class Base extends Provider {\n${defs.join('\n')}\n}` : '',
    `class Cloud extends ${viaBase ? 'Base' : 'Provider'} {`,
    `  constructor() { super("cloud", "1.0.0", ${capabilities}); }`,
    viaBase ? '' : defs.join('\n'),
    '}',
    'registerProvider(new Cloud());',
  ].join('\n');
  const entry = join(scratch, `${file}.ts`);
  writeFileSync(entry, source);
  return entry;
}

const allLb = LB_METHODS.map(([m]) => m);

describe('the capability check at build time', () => {
  it('names the methods a declared capability lacks', async () => {
    const entry = provider('partial', '[Capability.loadBalancer]', ['getLoadBalancer', 'ensureLoadBalancer']);
    const err = await compileAssemblyScript(entry, { optimize: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CompileError);
    expect((err as Error).message).toContain(
      'Cloud declares capability loadBalancer but does not override getLoadBalancerName, updateLoadBalancer, ' +
        "ensureLoadBalancerDeleted (the SDK's default answers NotImplemented)",
    );
  });

  it('reads capabilities given as strings, and methods a base class overrides', async () => {
    const missingOne = provider('strings', '["loadBalancer"]', allLb.slice(0, 4), true);
    const err = await compileAssemblyScript(missingOne, { optimize: false }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('does not override ensureLoadBalancerDeleted (');
    const complete = provider('complete', '["loadBalancer"]', allLb, true);
    await expect(compileAssemblyScript(complete, { optimize: false })).resolves.toMatchObject({ diagnostics: '' });
  });

  it('builds a provider that overrides every method of what it declares', async () => {
    const r = await compileAssemblyScript(provider('full', '[Capability.loadBalancer]', allLb), { optimize: false });
    expect(r.wasm.byteLength).toBeGreaterThan(0);
  });
});

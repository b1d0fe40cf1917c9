import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocRegionError, fillRegions, generateAbiFiles, loadModel, REPO_ROOT } from '../../../scripts/gen-abi.ts';
import { parseAbi } from '../../../plugin-sdk/codegen/model.ts';

describe('generated ABI files', () => {
  it('match what plugin-sdk/abi/v1.json produces (run `npm run gen:abi` if this fails)', async () => {
    const files = await generateAbiFiles();
    expect(files.size).toBeGreaterThanOrEqual(2);
    for (const [path, expected] of files) {
      let actual: string | null = null;
      try {
        actual = readFileSync(join(REPO_ROOT, path), 'utf8');
      } catch {
        // reported below
      }
      expect(actual, `${path} is missing or out of date: run npm run gen:abi`).toBe(expected);
    }
  });

  it('cover every method of the ABI.md call table', () => {
    const table = readFileSync(join(REPO_ROOT, 'plugin-sdk/ABI.md'), 'utf8');
    const exportsInDoc = [...table.matchAll(/\| `(ccm_[a-z_]+)` +\|/g)].map((m) => m[1]);
    const model = loadModel();
    expect(model.methods.map((m) => m.exportName).sort()).toEqual([...new Set(exportsInDoc)].sort());
  });
});

describe('generated doc regions', () => {
  const emit = (): string => '| a | b |\n|---|---|\n| 1 | 2 |';

  it('replace only the text between the markers', async () => {
    const doc = 'before\n<!-- generated:t -->\nstale\n<!-- /generated -->\nafter\n';
    const out = await fillRegions('doc.md', doc, { t: emit }, loadModel());
    expect(out).toBe(
      'before\n<!-- generated:t -->\n| a   | b   |\n| --- | --- |\n| 1   | 2   |\n<!-- /generated -->\nafter\n',
    );
  });

  it('refuse a doc without its region, or with it twice', async () => {
    for (const doc of ['no markers\n', '<!-- generated:t -->\n<!-- /generated -->\n<!-- generated:t -->\n']) {
      await expect(fillRegions('doc.md', doc, { t: emit }, loadModel())).rejects.toBeInstanceOf(DocRegionError);
    }
  });
});

describe('ABI definition checks', () => {
  const base = (): Record<string, unknown> =>
    JSON.parse(readFileSync(join(REPO_ROOT, 'plugin-sdk/abi/v1.json'), 'utf8'));

  it('rejects an unknown field type', () => {
    const def = base();
    (def.types as Record<string, { fields: Record<string, string> }>).Zone!.fields.region = 'int64';
    expect(() => parseAbi(def)).toThrow(/types\.Zone\.fields\.region: unknown field type "int64"/);
  });

  it('rejects an export name that is not the snake_case of the method', () => {
    const def = base();
    (def.methods as { export: string }[])[2]!.export = 'ccm_instanceexists';
    expect(() => parseAbi(def)).toThrow(/must be ccm_instance_exists/);
  });

  it('rejects recursive types', () => {
    const def = base();
    (def.types as Record<string, { fields: Record<string, string> }>).Zone!.fields.next = 'list<Zone>';
    expect(() => parseAbi(def)).toThrow(/recursive type \(Zone -> Zone\)/);
  });

  it('checks fields added by a later minor and list references', () => {
    type Fields = Record<string, unknown>;
    const fieldsOf = (def: Record<string, unknown>, type: string): Fields =>
      (def.types as Record<string, { fields: Fields }>)[type]!.fields;
    let def = base();
    fieldsOf(def, 'Zone').extra = { type: 'string', since: '1.99' };
    expect(() => parseAbi(def)).toThrow(/types\.Zone\.fields\.extra: since must be/);
    def = base();
    fieldsOf(def, 'EnsureLoadBalancerRequest').nodesRef = { type: 'i32', since: '1.2', refOf: 'clusterName' };
    expect(() => parseAbi(def)).toThrow(/refOf "clusterName" must name a list of objects/);
    const model = parseAbi(base());
    const nodesRef = model.types.get('EnsureLoadBalancerRequest')!.fields.find((f) => f.name === 'nodesRef');
    expect(nodesRef).toMatchObject({ since: 2, refOf: 'nodes', type: { kind: 'i32' } });
  });

  it('checks a batched method against the per-node method it batches', () => {
    type Method = Record<string, unknown>;
    const edited = (edit: (m: Method) => void): Record<string, unknown> => {
      const def = base();
      edit((def.methods as Method[]).find((m) => m.name === 'instanceExistsBatch')!);
      return def;
    };
    expect(parseAbi(base()).methods.find((m) => m.name === 'instanceExistsBatch')).toMatchObject({
      since: 5,
      batchOf: ['instanceExists'],
    });
    expect(() => parseAbi(edited((m) => delete m.since))).toThrow(/batched method is added by a later minor/);
    expect(() => parseAbi(edited((m) => (m.batchOf = 'nodeAddresses')))).toThrow(
      /"nodeAddresses" must name an earlier per-node method of the same capability/,
    );
    expect(() => parseAbi(edited((m) => (m.response = 'InstanceShutdownBatchResponse')))).toThrow(
      /must be \{results: list<\{ok: InstanceExistsResponse, error: NodeError\}>\}/,
    );
    const byName = (m: Method): void => {
      m.request = 'InstanceIDRequest';
      m.params = ['nodeName'];
    };
    expect(() => parseAbi(edited(byName))).toThrow(/must be \{nodes: list<Node>\}/);
  });

  it('checks a combined batch against the batched methods it combines', () => {
    type Method = Record<string, unknown>;
    const edited = (edit: (m: Method, def: Record<string, unknown>) => void): Record<string, unknown> => {
      const def = base();
      edit(
        (def.methods as Method[]).find((m) => m.name === 'instanceStatusBatch')!,
        def,
      );
      return def;
    };
    expect(parseAbi(base()).methods.find((m) => m.name === 'instanceStatusBatch')).toMatchObject({
      since: 6,
      batchOf: ['instanceExists', 'instanceShutdown'],
    });
    expect(() => parseAbi(edited((m) => (m.batchOf = ['instanceExists'])))).toThrow(/at least two per-node methods/);
    expect(() => parseAbi(edited((m) => (m.batchOf = ['instanceMetadata', 'instanceShutdown'])))).toThrow(
      /instanceMetadata answers more than one bool/,
    );
    expect(() => parseAbi(edited((m) => (m.batchOf = ['instanceShutdown', 'instanceExists'])))).toThrow(
      /field exists must be the outcome of instanceShutdown's batched method/,
    );
    expect(() => parseAbi(edited((m) => (m.batchOf = ['instanceExists', 'instanceStatusBatch'])))).toThrow(
      /"instanceStatusBatch" must name an earlier per-node method/,
    );
    const threeParts = (m: Method): void => {
      m.batchOf = ['instanceExists', 'instanceShutdown', 'instanceMetadata'];
    };
    expect(() => parseAbi(edited(threeParts))).toThrow(/one field per batchOf method/);
  });

  it("checks each capability method's facade metadata against its request and response", () => {
    type Method = Record<string, unknown>;
    const edited = (name: string, edit: (m: Method) => void): Record<string, unknown> => {
      const def = base();
      edit((def.methods as Method[]).find((m) => m.name === name)!);
      return def;
    };
    const cases: [Record<string, unknown>, RegExp][] = [
      [edited('createRoute', (m) => (m.params = ['clusterName', 'route'])), /params: misses nameHint/],
      [edited('master', (m) => (m.params = ['clusterName', 'zone'])), /"zone" is not a field of MasterRequest/],
      [edited('master', (m) => (m.returns = 'addr')), /"addr" is not a field of MasterResponse/],
      [edited('instanceID', (m) => (m.shadow = 'nodeName')), /shadow: must name an argument of an object type/],
      [edited('describe', (m) => (m.returns = 'response')), /"returns" is for capability methods only/],
      [edited('master', (m) => (m.shadw = 'x')), /methods\[\d+\]: unknown key "shadw"/],
    ];
    for (const [def, error] of cases) expect(() => parseAbi(def)).toThrow(error);
    const ensure = parseAbi(base()).methods.find((m) => m.name === 'ensureLoadBalancer')!.facade!;
    // nodesRef (ABI 1.2) is the runtime's to fill, not an argument.
    expect(ensure.params.map((p) => p.name)).toEqual(['clusterName', 'service', 'nodes']);
    expect(ensure.returns).toMatchObject({ kind: 'field', field: { name: 'status' } });
  });
});

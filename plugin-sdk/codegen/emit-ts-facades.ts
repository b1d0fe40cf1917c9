// Emits the host's per-method provider code from the methods' facade metadata (facade-model.ts): the capability
// interfaces the controllers program against, the Wasm provider's ABI calls, and the swappable provider's
// forwarders. What is not a per-method repetition stays hand-written beside them.
import { HEADER, tsType } from './emit-ts-types.ts';
import type { AbiModel, Facade, Field, FieldType, MethodDef } from './model.ts';

type FacadeMethod = MethodDef & { capability: string; facade: Facade };

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const interfaceOf = capitalized;

function facadeMethods(model: AbiModel, capability: string): FacadeMethod[] {
  return model.methods.filter((m): m is FacadeMethod => m.capability === capability && m.facade !== null);
}

function namedTypes(t: FieldType, into: Set<string>): void {
  if (t.kind === 'list') namedTypes(t.of, into);
  else if (t.kind === 'ref' || t.kind === 'enum') into.add(t.name);
}

function returnType(m: FacadeMethod): string {
  const r = m.facade.returns;
  if (r.kind === 'nothing') return 'void';
  return r.kind === 'response' ? m.response : tsType(r.field.type);
}

// A list another request field refers to (refOf: ABI 1.2 kept lists) is taken as a KeptList, whose identity stands
// for its content; the rest as their plain TypeScript types.
function paramType(m: FacadeMethod, param: Field, model: AbiModel): string {
  const kept = model.types.get(m.request)!.fields.some((f) => f.refOf === param.name);
  return kept ? `KeptList<${tsType(param.type.kind === 'list' ? param.type.of : param.type)}>` : tsType(param.type);
}

const signature = (m: FacadeMethod, model: AbiModel): string =>
  m.facade.params.map((p) => `${p.name}: ${paramType(m, p, model)}`).join(', ');
const argumentNames = (m: FacadeMethod): string => m.facade.params.map((p) => p.name).join(', ');

function methodDoc(m: FacadeMethod): string {
  const lines = [
    m.facade.doc,
    m.mayBeImplementedElsewhere ? 'May reject with ImplementedElsewhereError.' : '',
    m.since > 0 ? `ABI 1.${m.since}, optional.` : '',
  ];
  const text = lines.filter((l) => l !== '').join(' ');
  return text === '' ? '' : `  /** ${text} */\n`;
}

/** host/src/cloudprovider/capabilities.generated.ts: one interface per capability, as upstream's cloud.go. */
export function emitCapabilityInterfaces(model: AbiModel): string {
  const used = new Set<string>();
  const blocks: string[] = [];
  let keptLists = false;
  for (const capability of model.capabilities) {
    const methods = facadeMethods(model, capability).map((m) => {
      for (const p of m.facade.params) namedTypes(p.type, used);
      keptLists ||= signature(m, model).includes('KeptList<');
      if (m.facade.returns.kind === 'response') used.add(m.response);
      if (m.facade.returns.kind === 'field') namedTypes(m.facade.returns.field.type, used);
      // A method of a later minor is optional (`?`): a plugin may not export it, and a provider may not have it.
      const optional = m.since > 0 ? '?' : '';
      return `${methodDoc(m)}  ${m.name}${optional}(${signature(m, model)}): Promise<${returnType(m)}>;`;
    });
    const name = interfaceOf(capability);
    blocks.push(
      `/** The ${capability} capability (upstream ${name}). */\nexport interface ${name} {\n${methods.join('\n')}\n}\n`,
    );
  }
  const index = model.capabilities.map((c) => `  ${c}: ${interfaceOf(c)};`).join('\n');
  return [
    HEADER,
    `import type { ${[...used, ...(keptLists ? ['KeptList'] : [])].sort().join(', ')} } from '../abi/index.ts';\n`,
    ...blocks,
    `/** Every capability's interface by the capability's name. */\nexport interface Capabilities {\n${index}\n}\n`,
  ].join('\n');
}

function capabilityImports(model: AbiModel, extra: string[]): string {
  return [...extra, ...model.capabilities.map(interfaceOf)].sort().join(', ');
}

function factoryTable(model: AbiModel, name: string, input: string, prefix: string, doc: string): string {
  const rows = model.capabilities.map((c) => `  ${c}: ${prefix}${interfaceOf(c)},`).join('\n');
  return `/** ${doc} */\nexport const ${name}: CapabilityFactories<${input}> = {\n${rows}\n};\n`;
}

// The request is the arguments under their field names; the answer is unwrapped as `returns` says.
function pluginCall(m: FacadeMethod): string {
  const call = `p.call('${m.name}', { ${argumentNames(m)} })`;
  const r = m.facade.returns;
  if (r.kind === 'response') return `(${argumentNames(m)}) => ${call}`;
  if (r.kind === 'field') return `async (${argumentNames(m)}) => (await ${call}).${r.field.name}`;
  return `async (${argumentNames(m)}) => {\n      await ${call};\n    }`;
}

/** host/src/plugin/runtime/capabilities.generated.ts: each capability as ABI calls on a plugin. */
export function emitPluginCapabilities(model: AbiModel): string {
  const out = [
    HEADER,
    `import type { MethodName, Requests, Responses } from '../../abi/index.ts';`,
    `import type { ${capabilityImports(model, ['CapabilityFactories'])} } from '../../cloudprovider/index.ts';\n`,
    '/** One ABI call on the plugin: the method and its request in, its response out. */',
    'export type PluginCall = <M extends MethodName>(method: M, request: Requests[M]) => Promise<Responses[M]>;\n',
    '/** A plugin as the facades see it: its calls, and whether it exports an optional method of a later minor. */',
    'export interface PluginCalls {\n  call: PluginCall;\n  exports(method: MethodName): boolean;\n}\n',
  ];
  for (const c of model.capabilities) {
    // An optional method is there only when the plugin exports it, so a caller sees what the plugin has.
    const methods = facadeMethods(model, c).map((m) =>
      m.since > 0
        ? `    ...(p.exports('${m.name}') ? { ${m.name}: ${pluginCall(m)} } : {}),`
        : `    ${m.name}: ${pluginCall(m)},`,
    );
    out.push(
      `function calling${interfaceOf(c)}(p: PluginCalls): ${interfaceOf(c)} {\n  return {\n${methods.join('\n')}\n  };\n}\n`,
    );
  }
  out.push(
    factoryTable(
      model,
      'PLUGIN_CAPABILITIES',
      'PluginCalls',
      'calling',
      "Each capability's methods as calls on a plugin.",
    ),
  );
  return out.join('\n');
}

// Shadow mode names the object an answer is about: namespace/name when its type has a namespace.
function objectKey(model: AbiModel, param: Field): string {
  const type = param.type.kind === 'ref' ? model.types.get(param.type.name) : undefined;
  const namespaced = type?.fields.some((f) => f.name === 'namespace') === true;
  return namespaced ? `\`\${${param.name}.namespace}/\${${param.name}.name}\`` : `${param.name}.name`;
}

function forwarder(model: AbiModel, m: FacadeMethod): string {
  const args = argumentNames(m);
  // The provider current at the call may lack an optional method: NotImplemented, as a plugin without the export.
  const call =
    m.since > 0
      ? `(c) => c.${m.name}?.(${args}) ?? Promise.reject(new NotImplementedError('${m.name} is not exported'))`
      : `(c) => c.${m.name}(${args})`;
  const shadow = m.facade.shadow;
  // While a candidate answers beside the current plugin, the batched form of a shadowed method declines, so the
  // callers ask per node and every answer is compared.
  const perNode = model.methods.filter((x) => m.batchOf.includes(x.name));
  if (perNode.some((x) => x.facade?.shadow)) {
    return (
      `    ${m.name}: (${args}) =>
      f.shadowing()
        ? Promise.reject(new NotImplementedError('${m.name} is not used while a shadow candidate answers'))
` + `        : f.run('${m.capability}', ${call}),`
    );
  }
  if (shadow === null) return `    ${m.name}: (${args}) => f.run('${m.capability}', ${call}),`;
  return `    ${m.name}: (${args}) =>\n      f.runShadowed('${m.capability}', '${m.name}', ${objectKey(model, shadow)}, ${call}),`;
}

/** host/src/plugin/swap/forwarders.generated.ts: each capability forwarded to the provider current at each call. */
export function emitSwapForwarders(model: AbiModel): string {
  const shadowed = model.methods.filter((m) => m.facade?.shadow).map((m) => `'${m.name}'`);
  const out = [
    HEADER,
    `import type { Capability } from '../../abi/index.ts';`,
    `import type { ${capabilityImports(model, ['Capabilities', 'CapabilityFactories', 'Provider'])} } from '../../cloudprovider/index.ts';`,
    ...(model.methods.some((m) => m.since > 0 && m.facade !== null)
      ? [`import { NotImplementedError } from '../../cloudprovider/index.ts';\n`]
      : ['']),
    `/** The read-only methods whose answers shadow mode compares. */\nexport type ShadowMethod = ${shadowed.join(' | ')};\n`,
    '/** How a forwarded call reaches the provider that is current when it starts. */',
    'export interface Forwarding {',
    '  run<C extends Capability, T>(capability: C, call: (impl: Capabilities[C]) => Promise<T>): Promise<T>;',
    '  /** As run, and the call is repeated on the shadow candidate, if any, for the object named `object`. */',
    '  runShadowed<C extends Capability, T>(',
    '    capability: C,',
    '    method: ShadowMethod,',
    '    object: string,',
    '    call: (impl: Capabilities[C]) => Promise<T>,',
    '  ): Promise<T>;',
    '  /** Whether a shadow candidate answers beside the current provider now. */',
    '  shadowing(): boolean;',
    '}\n',
  ];
  for (const c of model.capabilities) {
    const methods = facadeMethods(model, c).map((m) => forwarder(model, m));
    out.push(
      `function forwarding${interfaceOf(c)}(f: Forwarding): ${interfaceOf(c)} {\n  return {\n${methods.join('\n')}\n  };\n}\n`,
    );
  }
  out.push(factoryTable(model, 'FORWARDERS', 'Forwarding', 'forwarding', 'Each capability forwarded.'));
  const accessors = model.capabilities.map((c) => `  ${c}: (p) => p.${c}(),`).join('\n');
  out.push(
    "/** A provider's implementation of each capability, or undefined. */\n" +
      `export const IMPLEMENTATION_OF: { readonly [C in Capability]: (p: Provider) => Capabilities[C] | undefined } = {\n${accessors}\n};\n`,
  );
  return out.join('\n');
}

// An asc transform that fails the build when a provider declares a capability without overriding each of its
// methods: the SDK's default for a method answers NotImplemented, which the host and the conformance kit treat as
// a broken provider, but only when the method is called. It reads the provider's constructor for the capabilities
// passed to super(name, version, [Capability.x, ...]) and the class chain for the methods it overrides. The SDK's
// preset loads it (asconfig.json "transform", PRESET_ARGS in compile.ts). Capabilities given other than as an array
// literal of Capability.<name> or strings cannot be read before run time; the kit's first check covers those.
import { readFileSync } from 'node:fs';
import * as assemblyscript from 'assemblyscript';
import type { ClassPrototype, Node, Program } from 'assemblyscript';

// The compiler's node and element kinds are const enums in its typings; read their values from the module itself.
const runtime = assemblyscript as unknown as { NodeKind: Record<string, number>; ElementKind: Record<string, number> };
function kind(values: Record<string, number>, name: string): number {
  const value = values[name];
  if (value === undefined) throw new Error(`assemblyscript has no kind ${name}: a compiler the SDK does not know`);
  return value;
}
const KIND = {
  call: kind(runtime.NodeKind, 'Call'),
  superCall: kind(runtime.NodeKind, 'Super'),
  propertyAccess: kind(runtime.NodeKind, 'PropertyAccess'),
  classPrototype: kind(runtime.ElementKind, 'ClassPrototype'),
};

interface AbiMethods {
  methods: { name: string; capability: string | null; since?: string }[];
}

/**
 * Method names of each capability, from the ABI this SDK implements; the optional methods of later minors (the
 * batched ones, whose default loops over the per-node method) are not required.
 */
export function methodsByCapability(): Map<string, string[]> {
  const abi = JSON.parse(readFileSync(new URL('../abi/v1.json', import.meta.url), 'utf8')) as AbiMethods;
  const out = new Map<string, string[]>();
  for (const m of abi.methods) {
    if (m.capability === null || m.since !== undefined) continue;
    out.set(m.capability, [...(out.get(m.capability) ?? []), m.name]);
  }
  return out;
}

export class CapabilityCheckError extends Error {
  override name = 'CapabilityCheckError';
  readonly code = 'CAPABILITY_METHODS_MISSING';
}

// The SDK's Provider (the class whose base is the generated ProviderMethods), when `proto` derives from it.
function isSdkProvider(proto: ClassPrototype): boolean {
  return proto.name === 'Provider' && proto.basePrototype?.name === 'ProviderMethods';
}

/** The methods a provider class and its ancestors below the SDK's Provider declare; null for other classes. */
function overriddenMethods(proto: ClassPrototype): Set<string> | null {
  const names = new Set<string>();
  for (let p: ClassPrototype | null = proto; p !== null; p = p.basePrototype) {
    if (isSdkProvider(p)) return names;
    for (const name of p.instanceMembers?.keys() ?? []) names.add(name);
  }
  return null;
}

// The capability names in super(name, version, [...]) of the nearest constructor; null when they cannot be read.
function declaredCapabilities(proto: ClassPrototype): string[] | null {
  for (let p: ClassPrototype | null = proto; p !== null && !isSdkProvider(p); p = p.basePrototype) {
    const body = p.constructorPrototype?.bodyNode as { statements?: Node[] } | null | undefined;
    for (const statement of body?.statements ?? []) {
      const call = (statement as { expression?: Node }).expression as
        { kind: number; expression: { kind: number }; args: Node[] } | undefined;
      if (call === undefined || call.kind !== KIND.call || call.expression.kind !== KIND.superCall) continue;
      const list = call.args[2] as { elementExpressions?: (Node | null)[] } | undefined;
      if (list?.elementExpressions === undefined) return null;
      const names: string[] = [];
      for (const e of list.elementExpressions) {
        const access = e as { kind?: number; property?: { text: string }; value?: unknown } | null;
        if (access === null) return null;
        if (access.kind === KIND.propertyAccess && access.property) names.push(access.property.text);
        else if (typeof access.value === 'string') names.push(access.value);
        else return null;
      }
      return names;
    }
  }
  return null;
}

/** One line per declared capability method a provider class does not override. */
export function missingMethods(program: Program, byCapability = methodsByCapability()): string[] {
  const problems: string[] = [];
  for (const element of program.elementsByName.values()) {
    if ((element.kind as number) !== KIND.classPrototype) continue;
    const proto = element as ClassPrototype;
    const overridden = overriddenMethods(proto);
    const declared = overridden === null ? null : declaredCapabilities(proto);
    if (overridden === null || declared === null) continue;
    for (const capability of declared) {
      const missing = (byCapability.get(capability) ?? []).filter((m) => !overridden.has(m));
      if (missing.length === 0) continue;
      problems.push(
        `${proto.name} declares capability ${capability} but does not override ${missing.join(', ')} ` +
          `(the SDK's default answers NotImplemented): implement ${missing.length > 1 ? 'them' : 'it'} or leave ` +
          `${capability} out of the capabilities`,
      );
    }
  }
  return [...new Set(problems)];
}

export default class CapabilityCheck {
  afterInitialize(program: Program): void {
    const problems = missingMethods(program);
    if (problems.length > 0) throw new CapabilityCheckError(problems.join('\n'));
  }
}

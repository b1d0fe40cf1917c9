// The ABI definition (plugin-sdk/abi/v1.json) parsed into a checked model the emitters walk. Everything that can be
// wrong in the definition is reported here, so the emitters can assume a consistent model.
import { FACADE_KEYS, parseFacade } from './facade-model.ts';
import type { AbiModel, Field, FieldType, MethodDef, TypeDef } from './model-types.ts';

// The model's shapes live in model-types.ts (facade-model.ts builds on them too); the emitters take them from here.
export type {
  AbiModel,
  Facade,
  Field,
  FieldType,
  HostFunctionDef,
  MethodDef,
  Returns,
  TypeDef,
} from './model-types.ts';

const IDENT = /^[A-Za-z][A-Za-z0-9]*$/;
const EXPORT = /^ccm_[a-z0-9_]+$/;
const SCALARS = new Set(['string', 'bool', 'i32', 'f64', 'map']);

function fail(where: string, what: string): never {
  throw new Error(`abi definition: ${where}: ${what}`);
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'expected an object');
  return value as Record<string, unknown>;
}

function str(value: unknown, where: string): string {
  if (typeof value !== 'string') fail(where, 'expected a string');
  return value;
}

function strList(value: unknown, where: string): string[] {
  if (!Array.isArray(value)) fail(where, 'expected a list of strings');
  return value.map((v, i) => str(v, `${where}[${i}]`));
}

// snake_case of a camelCase method name, the rule ABI.md gives for export names ("instanceID" -> "instance_id").
export function exportNameOf(method: string): string {
  return `ccm_${method.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()}`;
}

function parseFieldType(spec: string, where: string, model: AbiModel, typeNames: Set<string>): FieldType {
  const list = /^list<(.+)>$/.exec(spec);
  if (list) return { kind: 'list', of: parseFieldType(list[1]!, where, model, typeNames) };
  if (SCALARS.has(spec)) return { kind: spec } as FieldType;
  const values = model.enums.get(spec);
  if (values) return { kind: 'enum', name: spec, values };
  if (typeNames.has(spec)) return { kind: 'ref', name: spec };
  return fail(where, `unknown field type "${spec}"`);
}

// A field is a type name, or {type, since?, refOf?, doc?} for what a later minor added.
function parseField(name: string, spec: unknown, where: string, model: AbiModel, typeNames: Set<string>): Field {
  if (typeof spec === 'string')
    return { name, type: parseFieldType(spec, where, model, typeNames), since: 0, refOf: null };
  const o = record(spec, where);
  for (const key of Object.keys(o)) {
    if (!['type', 'since', 'refOf', 'doc'].includes(key)) fail(where, `unknown key "${key}"`);
  }
  const type = parseFieldType(str(o.type, `${where}.type`), where, model, typeNames);
  const since = parseSince(o.since, where, model);
  if (o.doc !== undefined) str(o.doc, `${where}.doc`);
  const refOf = o.refOf === undefined ? null : str(o.refOf, `${where}.refOf`);
  if (refOf !== null && (type.kind !== 'i32' || since === 0)) {
    fail(where, 'a list reference (refOf) is an i32 added after 1.0');
  }
  return { name, type, since, refOf };
}

// A list reference must name a list field of an object type in the same type.
function checkRefs(fields: readonly Field[], where: string): void {
  for (const f of fields) {
    if (f.refOf === null) continue;
    const target = fields.find((x) => x.name === f.refOf);
    if (target === undefined || target.type.kind !== 'list' || target.type.of.kind !== 'ref') {
      fail(`${where}.${f.name}`, `refOf "${f.refOf}" must name a list of objects of the same type`);
    }
  }
}

const METHOD_KEYS = [
  'name',
  'export',
  'capability',
  'request',
  'response',
  'mayBeImplementedElsewhere',
  'since',
  'batchOf',
  ...FACADE_KEYS,
];

function parseTypes(rawTypes: Record<string, unknown>, model: AbiModel): void {
  const typeNames = new Set(Object.keys(rawTypes));
  for (const name of typeNames) {
    if (!IDENT.test(name)) fail(`types.${name}`, 'not an identifier');
    if (model.enums.has(name) || SCALARS.has(name)) fail(`types.${name}`, 'clashes with an enum or scalar name');
  }
  for (const [name, raw] of Object.entries(rawTypes)) {
    const def = record(raw, `types.${name}`);
    const fields: Field[] = [];
    for (const [fieldName, spec] of Object.entries(record(def.fields, `types.${name}.fields`))) {
      const where = `types.${name}.fields.${fieldName}`;
      if (!IDENT.test(fieldName)) fail(where, 'not an identifier');
      fields.push(parseField(fieldName, spec, where, model, typeNames));
    }
    checkRefs(fields, `types.${name}.fields`);
    model.types.set(name, { name, doc: def.doc === undefined ? '' : str(def.doc, `types.${name}.doc`), fields });
  }
}

function parseMethod(raw: unknown, where: string, model: AbiModel): MethodDef {
  const m = record(raw, where);
  const unknown = Object.keys(m).find((key) => !METHOD_KEYS.includes(key));
  if (unknown !== undefined) fail(where, `unknown key "${unknown}"`);
  const name = str(m.name, `${where}.name`);
  if (!IDENT.test(name) || model.methods.some((x) => x.name === name)) {
    fail(where, `bad or duplicate method name "${name}"`);
  }
  const exportName = str(m.export, `${where}.export`);
  if (!EXPORT.test(exportName) || exportName !== exportNameOf(name)) {
    fail(where, `export "${exportName}" must be ${exportNameOf(name)}`);
  }
  const capability = m.capability === null ? null : str(m.capability, `${where}.capability`);
  if (capability !== null && !model.capabilities.includes(capability)) fail(where, `unknown capability ${capability}`);
  const request = str(m.request, `${where}.request`);
  const response = str(m.response, `${where}.response`);
  for (const t of [request, response]) if (!model.types.has(t)) fail(where, `unknown type ${t}`);
  const since = parseSince(m.since, where, model);
  const batchOf = parseBatchOf(m.batchOf, `${where}.batchOf`);
  if (since > 0 && capability === null) fail(where, 'a method of no capability cannot be optional (since)');
  const method: MethodDef = {
    name,
    exportName,
    capability,
    request,
    response,
    mayBeImplementedElsewhere: m.mayBeImplementedElsewhere === true,
    since,
    batchOf,
    facade: parseFacade(m, { capability, request, response }, model.types, where),
  };
  if (batchOf.length === 1) checkBatch(method, model, where);
  if (batchOf.length > 1) checkCombinedBatch(method, model, where);
  return method;
}

// batchOf is a method name, or a list of them for a combined batch.
function parseBatchOf(raw: unknown, where: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return [str(raw, where)];
  if (raw.length < 2) fail(where, 'a list names at least two per-node methods');
  return raw.map((x, i) => str(x, `${where}[${i}]`));
}

// A minor written "1.<minor>", up to the definition's own: 0 when absent (1.0).
function parseSince(raw: unknown, where: string, model: AbiModel): number {
  if (raw === undefined) return 0;
  const m = /^(\d+)\.(\d+)$/.exec(str(raw, where));
  if (!m || Number(m[1]) !== model.major || Number(m[2]) > model.minor) {
    fail(where, `since must be "${model.major}.<minor>" up to ${model.major}.${model.minor}`);
  }
  return Number(m[2]);
}

function fieldType(model: AbiModel, type: string, field: string): FieldType | undefined {
  return model.types.get(type)?.fields.find((f) => f.name === field)?.type;
}

const isRef = (t: FieldType | undefined, name: string): boolean => t?.kind === 'ref' && t.name === name;
const listOfRef = (t: FieldType | undefined): string | null =>
  t?.kind === 'list' && t.of.kind === 'ref' ? t.of.name : null;

// A batched method has the per-node method's shape many times over: {nodes} in for its {node}, and {results} out,
// each {ok: <its response>, error: NodeError}; the SDK's default and the host's fallback loop over the per-node one.
function perNodeMethod(method: MethodDef, name: string, model: AbiModel, where: string): MethodDef {
  const one = model.methods.find((x) => x.name === name);
  if (one === undefined || one.batchOf.length > 0 || one.capability !== method.capability) {
    fail(`${where}.batchOf`, `"${name}" must name an earlier per-node method of the same capability`);
  }
  if (method.since === 0) fail(`${where}.batchOf`, 'a batched method is added by a later minor (since)');
  return one;
}

function checkBatchRequest(method: MethodDef, one: MethodDef, model: AbiModel, where: string): void {
  const requestFields = model.types.get(method.request)!.fields;
  const oneNode = fieldType(model, one.request, 'node');
  const nodes = fieldType(model, method.request, 'nodes');
  if (requestFields.length !== 1 || !isRef(oneNode, 'Node') || listOfRef(nodes) !== 'Node') {
    fail(`${where}.request`, `must be {nodes: list<Node>} for ${one.name}'s {node: Node}`);
  }
}

function checkBatch(method: MethodDef, model: AbiModel, where: string): void {
  const one = perNodeMethod(method, method.batchOf[0]!, model, where);
  checkBatchRequest(method, one, model, where);
  const outcome = listOfRef(fieldType(model, method.response, 'results'));
  const ok = outcome === null ? undefined : fieldType(model, outcome, 'ok');
  if (outcome === null || !isRef(ok, one.response) || !isRef(fieldType(model, outcome, 'error'), 'NodeError')) {
    fail(`${where}.response`, `must be {results: list<{ok: ${one.response}, error: NodeError}>}`);
  }
}

// A combined batch answers several per-node methods for each node, each only for the nodes every earlier one answered
// true for (so each but the last answers one bool): its outcome holds, per listed method in order, the outcome of that
// method's own batched form, which the SDK's default and the host's fallback call in turn.
function checkCombinedBatch(method: MethodDef, model: AbiModel, where: string): void {
  const outcome = listOfRef(fieldType(model, method.response, 'results'));
  const parts = outcome === null ? [] : model.types.get(outcome)!.fields;
  if (parts.length !== method.batchOf.length) {
    fail(`${where}.response`, `must be {results: list<{<one field per batchOf method>}>}`);
  }
  method.batchOf.forEach((name, i) => {
    const one = perNodeMethod(method, name, model, where);
    checkBatchRequest(method, one, model, where);
    const batch = model.methods.find((x) => x.batchOf.length === 1 && x.batchOf[0] === name);
    const answer = model.types.get(one.response)!.fields;
    if (i < parts.length - 1 && (answer.length !== 1 || answer[0]!.type.kind !== 'bool')) {
      fail(`${where}.batchOf`, `${name} answers more than one bool: only the last method of a combined batch may`);
    }
    const own = batch === undefined ? null : listOfRef(fieldType(model, batch.response, 'results'));
    if (own === null || !isRef(parts[i]!.type, own)) {
      fail(`${where}.response`, `field ${parts[i]!.name} must be the outcome of ${name}'s batched method`);
    }
  });
}

export function parseAbi(json: unknown): AbiModel {
  const root = record(json, '(root)');
  const abi = record(root.abi, 'abi');
  const model: AbiModel = {
    major: Number(abi.major),
    minor: Number(abi.minor),
    errorCodes: strList(root.errorCodes, 'errorCodes'),
    capabilities: strList(root.capabilities, 'capabilities'),
    enums: new Map(),
    types: new Map(),
    methods: [],
    hostFunctions: [],
  };
  if (!Number.isInteger(model.major) || !Number.isInteger(model.minor)) fail('abi', 'major and minor must be integers');

  for (const [name, values] of Object.entries(record(root.enums, 'enums'))) {
    if (!IDENT.test(name)) fail(`enums.${name}`, 'not an identifier');
    model.enums.set(name, strList(values, `enums.${name}`));
  }

  parseTypes(record(root.types, 'types'), model);

  const rawMethods = root.methods;
  if (!Array.isArray(rawMethods)) fail('methods', 'expected a list');
  rawMethods.forEach((raw, i) => model.methods.push(parseMethod(raw, `methods[${i}]`, model)));
  for (const cap of model.capabilities) {
    if (!model.methods.some((m) => m.capability === cap)) fail(`capabilities.${cap}`, 'has no methods');
  }

  const rawHost = root.hostFunctions;
  if (!Array.isArray(rawHost)) fail('hostFunctions', 'expected a list');
  rawHost.forEach((raw, i) => {
    const where = `hostFunctions[${i}]`;
    const h = record(raw, where);
    const opt = (key: string): string | null => {
      if (h[key] === undefined) return null;
      const t = str(h[key], `${where}.${key}`);
      if (!model.types.has(t)) fail(where, `unknown type ${t}`);
      return t;
    };
    model.hostFunctions.push({
      name: str(h.name, `${where}.name`),
      request: opt('request'),
      response: opt('response'),
      error: opt('error'),
    });
  });
  typeOrder(model); // rejects recursive types: the SDK's classes need a declaration order
  return model;
}

/** The names of Node's fields, in order: what a plugin may name as the Node fields its load balancers read. */
export function nodeFieldNames(model: AbiModel): string[] {
  return model.types.get('Node')?.fields.map((f) => f.name) ?? [];
}

// Types reachable from a root, dependencies first: the AssemblyScript emitter declares classes in this order.
export function typeOrder(model: AbiModel): TypeDef[] {
  const out: TypeDef[] = [];
  const done = new Set<string>();
  const visit = (name: string, stack: string[]): void => {
    if (done.has(name)) return;
    if (stack.includes(name)) fail(`types.${name}`, `recursive type (${[...stack, name].join(' -> ')})`);
    const def = model.types.get(name)!;
    for (const f of def.fields) {
      let t = f.type;
      while (t.kind === 'list') t = t.of;
      if (t.kind === 'ref') visit(t.name, [...stack, name]);
    }
    done.add(name);
    out.push(def);
  };
  for (const name of model.types.keys()) visit(name, []);
  return out;
}

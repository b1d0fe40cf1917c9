// What the host's provider facades need to know of a capability method beyond its wire types: how the
// Provider method's arguments become the request, what of the response it answers, and whether shadow mode
// compares its answers. Parsed from the method's entry in plugin-sdk/abi/v1.json ("params", "returns", "shadow",
// "doc"); see the definition's $comment.

import type { Facade, Field, Returns, TypeDef } from './model-types.ts';

export const FACADE_KEYS = ['params', 'returns', 'shadow', 'doc'];

function fail(where: string, what: string): never {
  throw new Error(`abi definition: ${where}: ${what}`);
}

function fieldOf(type: TypeDef, name: unknown, where: string): Field {
  const field = typeof name === 'string' ? type.fields.find((f) => f.name === name) : undefined;
  if (field === undefined) fail(where, `"${String(name)}" is not a field of ${type.name}`);
  return field;
}

function parseParams(raw: unknown, request: TypeDef, where: string): Field[] {
  if (!Array.isArray(raw)) fail(`${where}.params`, 'expected a list of request fields');
  const params = raw.map((name, i) => fieldOf(request, name, `${where}.params[${i}]`));
  if (new Set(params).size !== params.length) fail(`${where}.params`, 'names a field twice');
  // A v1.0 field is required on the wire, so the facade must be able to fill it; later optional fields (a list
  // reference) are the runtime's to fill.
  const missing = request.fields.filter((f) => f.since === 0 && !params.includes(f));
  if (missing.length > 0) fail(`${where}.params`, `misses ${missing.map((f) => f.name).join(', ')}`);
  return params;
}

function parseReturns(raw: unknown, response: TypeDef, where: string): Returns {
  if (raw === 'response') return { kind: 'response' };
  if (raw === 'nothing') return { kind: 'nothing' };
  return { kind: 'field', field: fieldOf(response, raw, `${where}.returns`) };
}

// The shadowed object is keyed by its name (and namespace, when its type has one) in logs and /debug/plugins.
function parseShadow(
  raw: unknown,
  params: readonly Field[],
  types: ReadonlyMap<string, TypeDef>,
  where: string,
): Field | null {
  if (raw === undefined) return null;
  const param = params.find((p) => p.name === raw);
  const type = param?.type.kind === 'ref' ? types.get(param.type.name) : undefined;
  if (param === undefined || !type?.fields.some((f) => f.name === 'name' && f.type.kind === 'string')) {
    fail(`${where}.shadow`, 'must name an argument of an object type with a string name');
  }
  return param;
}

/**
 * The facade metadata of a method: `raw` is its entry in the definition. Capability-less methods (describe,
 * initialize) have no facade and must carry none of these keys.
 */
export function parseFacade(
  raw: Record<string, unknown>,
  method: { capability: string | null; request: string; response: string },
  types: ReadonlyMap<string, TypeDef>,
  where: string,
): Facade | null {
  if (method.capability === null) {
    const stray = FACADE_KEYS.find((key) => raw[key] !== undefined);
    if (stray !== undefined) fail(where, `"${stray}" is for capability methods only`);
    return null;
  }
  const params = parseParams(raw.params, types.get(method.request)!, where);
  const shadow = parseShadow(raw.shadow, params, types, where);
  if (raw.doc !== undefined && typeof raw.doc !== 'string') fail(`${where}.doc`, 'expected a string');
  const returns = parseReturns(raw.returns, types.get(method.response)!, where);
  return { params, returns, shadow, doc: typeof raw.doc === 'string' ? raw.doc : '' };
}

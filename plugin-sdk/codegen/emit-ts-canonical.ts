// Emits the canonical form of a validated answer into host/src/abi/validate.generated.ts: each response type rebuilt
// with its ABI fields only, in the definition's order. The plugin's worker parses and validates an answer, and hands
// the main thread this form instead of the plugin's bytes (host/src/plugin/sandbox/canonical-answer.ts): an object
// shape V8 builds on its fast path, whatever the plugin wrote. Fields the host does not know (a later minor's) are
// dropped; ABI.md says a receiver ignores them. Map entries are the only keys a plugin chooses: they are counted.
import type { AbiModel, FieldType } from './model.ts';

const canonical = (typeName: string): string => `canonical${typeName}`;

// The expression that copies a value of type `t` held in `value`; scalars and enumerations are kept as they are.
function copyOf(t: FieldType, value: string): string {
  switch (t.kind) {
    case 'map':
      return `canonicalMap(${value})`;
    case 'ref':
      return `${canonical(t.name)}(${value})`;
    case 'list': {
      const element = copyOf(t.of, 'e');
      return element === 'e' ? value : `${value}.map((e) => ${element})`;
    }
    default:
      return value;
  }
}

// The response types (and what they reach): requests are the host's own and never canonicalized.
function responseTypes(model: AbiModel): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const f of model.types.get(name)!.fields) {
      let t = f.type;
      while (t.kind === 'list') t = t.of;
      if (t.kind === 'ref') visit(t.name);
    }
  };
  for (const m of model.methods) visit(m.response);
  return [...model.types.keys()].filter((name) => seen.has(name));
}

function objectCopier(model: AbiModel, typeName: string): string {
  const def = model.types.get(typeName)!;
  const type = `Types['${typeName}']`;
  const required = def.fields.filter((f) => f.since === 0);
  const later = def.fields.filter((f) => f.since > 0);
  const init = required.map((f) => `${f.name}: ${copyOf(f.type, `x.${f.name}`)}`).join(', ');
  const lines = [`function ${canonical(typeName)}(x: ${type}): ${type} {`];
  if (later.length === 0) {
    lines.push(`  return { ${init} };`);
  } else {
    lines.push(`  const o: ${type} = { ${init} };`);
    for (const f of later) {
      lines.push(`  if (x.${f.name} !== undefined) o.${f.name} = ${copyOf(f.type, `x.${f.name}`)};`);
    }
    lines.push('  return o;');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

const RUNTIME = `/** Entries of all the maps of one answer together, at most (its keys are the only ones a plugin chooses). */
export const MAX_ANSWER_MAP_ENTRIES = 1000;

export class AnswerMapError extends Error {
  override name = 'AnswerMapError';
}

let mapEntries = 0;

// A map's entries copied into an object without a prototype: "__proto__" stays an entry like any other.
function canonicalMap(x: Record<string, string>): Record<string, string> {
  const m = Object.create(null) as Record<string, string>;
  for (const k in x) {
    if (++mapEntries > MAX_ANSWER_MAP_ENTRIES) {
      throw new AnswerMapError(\`the answer's maps hold more than \${MAX_ANSWER_MAP_ENTRIES} entries\`);
    }
    m[k] = x[k] as string;
  }
  return m;
}
`;

const ENTRY_POINT = `/**
 * The canonical form of a validated envelope: the response's ABI fields only, in the definition's order, or the
 * error's code, message and retryAfterSeconds. Throws AnswerMapError past MAX_ANSWER_MAP_ENTRIES.
 */
export function canonicalEnvelope<M extends MethodName>(method: M, envelope: Envelope<M>): Envelope<M> {
  mapEntries = 0;
  if ('ok' in envelope) return { ok: (CANONICAL_RESPONSES[method] as (x: unknown) => unknown)(envelope.ok) } as Envelope<M>;
  const { code, message, retryAfterSeconds } = envelope.error;
  return { error: retryAfterSeconds === undefined ? { code, message } : { code, message, retryAfterSeconds } };
}
`;

export function emitTsCanonical(model: AbiModel): string {
  const out = [RUNTIME];
  for (const name of responseTypes(model)) out.push(objectCopier(model, name));
  const table = model.methods.map((m) => `  ${m.name}: ${canonical(m.response)},`).join('\n');
  out.push(
    `const CANONICAL_RESPONSES: { [M in MethodName]: (x: Responses[M]) => Responses[M] } = {\n${table}\n};\n`,
    ENTRY_POINT,
  );
  return out.join('\n');
}

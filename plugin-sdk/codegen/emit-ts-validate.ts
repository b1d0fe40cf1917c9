// Emits host/src/abi/validate.generated.ts: one straight-line checker per ABI type, so checking a plugin's answer
// costs a few property reads per field and builds a path string only when something is wrong. Paths are assembled on
// the way out of the checkers (".addresses[2]" + ".type: expected ..."), which keeps the success path allocation-free.
import { emitTsCanonical } from './emit-ts-canonical.ts';
import { HEADER } from './emit-ts-types.ts';
import type { AbiModel, FieldType } from './model.ts';

const q = (s: string): string => `'${s}'`;

function key(t: FieldType): string {
  switch (t.kind) {
    case 'list':
      return `List${key(t.of)}`;
    case 'ref':
    case 'enum':
      return t.name;
    default:
      return t.kind[0]!.toUpperCase() + t.kind.slice(1);
  }
}

const checker = (t: FieldType): string => `check${key(t)}`;

// Helpers for the non-object kinds a field can have, emitted only when some field uses them.
function helper(t: FieldType): string {
  const name = checker(t);
  switch (t.kind) {
    case 'string':
      return `function ${name}(x: unknown): string | undefined {\n  return typeof x === 'string' ? undefined : \`: expected string, got \${show(x)}\`;\n}\n`;
    case 'bool':
      return `function ${name}(x: unknown): string | undefined {\n  return typeof x === 'boolean' ? undefined : \`: expected bool, got \${show(x)}\`;\n}\n`;
    case 'i32':
      return `function ${name}(x: unknown): string | undefined {\n  return typeof x === 'number' && (x | 0) === x ? undefined : \`: expected i32, got \${show(x)}\`;\n}\n`;
    case 'f64':
      return `function ${name}(x: unknown): string | undefined {\n  return typeof x === 'number' && Number.isFinite(x) ? undefined : \`: expected number, got \${show(x)}\`;\n}\n`;
    case 'map':
      return (
        `function ${name}(x: unknown): string | undefined {\n` +
        `  if (typeof x !== 'object' || x === null || Array.isArray(x)) return \`: expected map of strings, got \${show(x)}\`;\n` +
        '  const m = x as Record<string, unknown>;\n' +
        '  for (const k in m) {\n' +
        `    if (typeof m[k] !== 'string') return \`[\${JSON.stringify(k)}]: expected string, got \${show(m[k])}\`;\n` +
        '  }\n  return undefined;\n}\n'
      );
    case 'enum': {
      const shown = t.values.map((v) => (v === '' ? '""' : v)).join('|');
      return (
        `function ${name}(x: unknown): string | undefined {\n` +
        `  return ${t.values.map((v) => `x === ${q(v)}`).join(' || ')} ? undefined : \`: expected one of ${shown}, got \${show(x)}\`;\n}\n`
      );
    }
    case 'list':
      return (
        `function ${name}(x: unknown): string | undefined {\n` +
        `  if (!Array.isArray(x)) return \`: expected list, got \${show(x)}\`;\n` +
        '  for (let i = 0; i < x.length; i++) {\n' +
        `    const e = ${checker(t.of)}(x[i]);\n` +
        '    if (e !== undefined) return `[${i}]${e}`;\n' +
        '  }\n  return undefined;\n}\n'
      );
    case 'ref':
      return '';
  }
}

function objectChecker(model: AbiModel, typeName: string): string {
  const def = model.types.get(typeName)!;
  const lines = [
    `function ${checker({ kind: 'ref', name: typeName })}(x: unknown): string | undefined {`,
    `  if (typeof x !== 'object' || x === null || Array.isArray(x)) return \`: expected object, got \${show(x)}\`;`,
  ];
  if (def.fields.length > 0) lines.push('  const o = x as Record<string, unknown>;');
  if (def.fields.some((f) => f.type.kind !== 'string' || f.since > 0)) lines.push('  let e: string | undefined;');
  for (const f of def.fields) {
    if (f.since > 0) {
      // Added by a later minor: absent is fine, present must be right.
      lines.push(
        `  if (o.${f.name} !== undefined) {`,
        `    e = ${checker(f.type)}(o.${f.name});`,
        `    if (e !== undefined) return \`.${f.name}\${e}\`;`,
        '  }',
      );
    } else if (f.type.kind === 'string') {
      // Strings are most fields: inline the test instead of calling the helper.
      lines.push(
        `  if (typeof o.${f.name} !== 'string') return \`.${f.name}: expected string, got \${show(o.${f.name})}\`;`,
      );
    } else {
      lines.push(`  e = ${checker(f.type)}(o.${f.name});`, `  if (e !== undefined) return \`.${f.name}\${e}\`;`);
    }
  }
  lines.push('  return undefined;', '}');
  return `${lines.join('\n')}\n`;
}

const RUNTIME = `export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

type Check = (x: unknown) => string | undefined;

// Shows the offending value in an error message: strings quoted and cut short, containers by kind only.
function show(x: unknown): string {
  if (x === undefined) return 'nothing (missing)';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  switch (typeof x) {
    case 'string':
      return JSON.stringify(x.length > 64 ? \`\${x.slice(0, 64)}...\` : x);
    case 'object':
      return 'an object';
    default:
      return String(x);
  }
}
`;

const ENTRY_POINTS = `function result<T>(x: unknown, e: string | undefined, root: string): Validation<T> {
  return e === undefined ? { ok: true, value: x as T } : { ok: false, error: \`\${root}\${e}\` };
}

/** Checks a request the host is about to send; error paths start at \`request\`. */
export function validateRequest<M extends MethodName>(method: M, value: unknown): Validation<Requests[M]> {
  if (!Object.hasOwn(REQUESTS, method)) return { ok: false, error: \`unknown method \${JSON.stringify(method)}\` };
  return result(value, REQUESTS[method](value), 'request');
}

/** Checks the \`ok\` part of an answer; error paths start at \`ok\`. Unknown extra fields are ignored. */
export function validateResponse<M extends MethodName>(method: M, value: unknown): Validation<Responses[M]> {
  if (!Object.hasOwn(RESPONSES, method)) return { ok: false, error: \`unknown method \${JSON.stringify(method)}\` };
  return result(value, RESPONSES[method](value), 'ok');
}

/** Checks any ABI type (for example a host function's input); error paths start at \`root\`. */
export function validateValue<T extends TypeName>(type: T, value: unknown, root: string = type): Validation<Types[T]> {
  if (!Object.hasOwn(TYPES, type)) return { ok: false, error: \`unknown type \${JSON.stringify(type)}\` };
  return result(value, TYPES[type](value), root);
}

function checkPluginError(x: unknown, method: MethodName): string | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return \`: expected object, got \${show(x)}\`;
  const o = x as Record<string, unknown>;
  const e = checkErrorCode(o.code);
  if (e !== undefined) return \`.code\${e}\`;
  if (o.code === 'ImplementedElsewhere' && !METHODS[method].mayBeImplementedElsewhere) {
    return \`.code: ImplementedElsewhere is not an answer \${method} may give\`;
  }
  if (typeof o.message !== 'string') return \`.message: expected string, got \${show(o.message)}\`;
  const retry = o.retryAfterSeconds;
  if (o.code === 'Retry' || retry !== undefined) {
    if (typeof retry !== 'number' || !Number.isFinite(retry) || retry <= 0) {
      return \`.retryAfterSeconds: expected a number > 0\${o.code === 'Retry' ? ' (required for Retry)' : ''}, got \${show(retry)}\`;
    }
  }
  return undefined;
}

/**
 * Checks a whole answer: \`{"ok": <response>}\` or \`{"error": {code, message, retryAfterSeconds?}}\`.
 * Retry needs retryAfterSeconds > 0; ImplementedElsewhere is accepted only where METHODS allows it.
 */
export function validateEnvelope<M extends MethodName>(method: M, value: unknown): Validation<Envelope<M>> {
  if (!Object.hasOwn(RESPONSES, method)) return { ok: false, error: \`unknown method \${JSON.stringify(method)}\` };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: \`envelope: expected object, got \${show(value)}\` };
  }
  const env = value as Record<string, unknown>;
  if (env.ok !== undefined && env.error !== undefined) return { ok: false, error: 'envelope: has both ok and error' };
  if (env.ok !== undefined) return result(value, RESPONSES[method](env.ok), 'ok');
  if (env.error !== undefined) return result(value, checkPluginError(env.error, method), 'error');
  const keys = Object.keys(env).slice(0, 5).map((k) => JSON.stringify(k));
  return { ok: false, error: \`envelope: expected key ok or error, got {\${keys.join(', ')}}\` };
}
`;

export function emitTsValidate(model: AbiModel): string {
  // Every distinct field type, in first-use order, so each helper is emitted once.
  const helpers = new Map<string, FieldType>();
  const collect = (t: FieldType): void => {
    if (t.kind === 'list') collect(t.of);
    if (!helpers.has(key(t))) helpers.set(key(t), t);
  };
  for (const def of model.types.values()) for (const f of def.fields) collect(f.type);
  helpers.set('ErrorCode', { kind: 'enum', name: 'ErrorCode', values: model.errorCodes });

  const out = [
    HEADER,
    "import type {\n  Envelope,\n  MethodName,\n  Requests,\n  Responses,\n  TypeName,\n  Types,\n} from './types.generated.ts';",
    "import { METHODS } from './types.generated.ts';\n",
    RUNTIME,
  ];
  for (const t of helpers.values()) if (t.kind !== 'ref') out.push(helper(t));
  for (const name of model.types.keys()) out.push(objectChecker(model, name));
  const table = (entries: [string, string][]): string => entries.map(([k, t]) => `  ${k}: check${t},`).join('\n');
  out.push(`const TYPES: Record<TypeName, Check> = {\n${table([...model.types.keys()].map((n) => [n, n]))}\n};\n`);
  out.push(
    `const REQUESTS: Record<MethodName, Check> = {\n${table(model.methods.map((m) => [m.name, m.request]))}\n};\n`,
  );
  out.push(
    `const RESPONSES: Record<MethodName, Check> = {\n${table(model.methods.map((m) => [m.name, m.response]))}\n};\n`,
  );
  out.push(ENTRY_POINTS, emitTsCanonical(model));
  return out.join('\n');
}

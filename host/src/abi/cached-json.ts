// Plugin requests travel as UTF-8 JSON. Some parts of them are large and change rarely: every load balancer call
// carries the whole node list (hundreds of KB for 1,000 nodes), and serializing and encoding it per call was most of
// the main thread's CPU (bench/host/service-node-set.ts measures that work). Such a part is serialized once, registered here
// with its bytes, and spliced into every request that carries it. (JSON.rawJSON cannot do this: it accepts primitives
// only, not arrays or objects.)

const encoder = new TextEncoder();
/** The bytes of each registered value, or what makes its text when it is first needed. */
const registry = new WeakMap<object, Uint8Array | (() => string)>();

/**
 * Registers `text` as the serialization of `value` and returns `value`: the text itself, or a function that makes it,
 * called once, when a request first carries `value` (a value that never goes into a request costs nothing). The
 * caller guarantees that the text is JSON.stringify(value) and that `value` is frozen all the way down, so the bytes
 * can never go stale; a value that is not even shallowly frozen is refused.
 */
export function withCachedJSON<T extends object>(value: T, text: string | (() => string)): T {
  if (!Object.isFrozen(value)) throw new TypeError('withCachedJSON: the value must be frozen');
  registry.set(value, typeof text === 'string' ? encoder.encode(text) : text);
  return value;
}

/** Whether `value` carries a registered serialization. */
export function hasCachedJSON(value: unknown): boolean {
  return typeof value === 'object' && value !== null && registry.has(value);
}

function cachedBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const cached = registry.get(value);
  if (typeof cached !== 'function') return cached;
  const bytes = encoder.encode(cached());
  registry.set(value, bytes);
  return bytes;
}

/**
 * JSON.stringify(value), as the plugin instance takes it: the text itself, or its UTF-8 bytes when the registered
 * serialization of `value` or of one of its top-level fields was spliced in instead of recomputed. Deeper registered
 * values are not looked for: requests are flat objects whose fields are the large parts.
 */
export function jsonPayload(value: unknown): string | Uint8Array {
  const whole = cachedBytes(value);
  // A copy: the cached bytes must not be handed to code that could write into them.
  if (whole) return whole.slice();
  if (!isPlainObject(value) || !Object.values(value).some((v) => cachedBytes(v) !== undefined)) {
    return JSON.stringify(value);
  }
  const parts: Uint8Array[] = [];
  let text = '{';
  let first = true;
  for (const [key, field] of Object.entries(value)) {
    const bytes = cachedBytes(field);
    const json = bytes ? undefined : (JSON.stringify(field) as string | undefined);
    // JSON.stringify leaves out fields whose value has no JSON form (undefined, functions, symbols).
    if (!bytes && json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (bytes) {
      parts.push(Buffer.from(text), bytes);
      text = '';
    } else {
      text += json;
    }
  }
  parts.push(Buffer.from(`${text}}`));
  // Buffer: small texts come from its pool, and the result is not zero-filled before the copy.
  return Buffer.concat(parts);
}

/** An object JSON.stringify serializes field by field: not an array, no toJSON of its own. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

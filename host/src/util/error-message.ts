// What was thrown, as text for a log field, an Event or a rejection reason. JavaScript can throw anything, and
// `errorMessage(err)` of a thrown string or object is `undefined`: the one line that should say what went wrong
// would say nothing.

/** An Error's message (its name when the message is empty); anything else as readable text, never `undefined`. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return typeof err.message === 'string' && err.message !== '' ? err.message : err.name;
  if (typeof err === 'string') return err;
  if (typeof err === 'object' && err !== null) return objectMessage(err);
  return String(err);
}

function objectMessage(value: object): string {
  // An error from another realm (a vm context) is not `instanceof Error` but is one.
  const message: unknown = (value as { message?: unknown }).message;
  if (typeof message === 'string' && message !== '') return message;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null || Array.isArray(value)) {
    try {
      return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    } catch {
      // A cycle: fall through to String().
    }
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

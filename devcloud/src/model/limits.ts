// Name rules and size limits, shared by the JSON schemas (HTTP) and the stores (embedded seed helpers),
// so both doors into the cloud accept exactly the same things.

/** LB and route names: lowercase DNS label, at most 63 characters. */
export const RESOURCE_NAME_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
export const RESOURCE_NAME_MAX = 63;

/** Instance names: a DNS subdomain like a Kubernetes node name. */
export const INSTANCE_NAME_PATTERN = '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$';
export const INSTANCE_NAME_MAX = 253;

/** Instance ids (generated as "i-" + 16 hex digits; seeds may choose their own). */
export const INSTANCE_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';

export const INSTANCE_TYPE_PATTERN = '^[a-z0-9][a-z0-9.-]{0,62}$';

export const MAX_TAGS = 64;
export const TAG_KEY_MAX = 128;
export const TAG_VALUE_MAX = 256;
export const DESCRIPTION_MAX = 255;
export const MAX_LISTENERS = 100;
export const MAX_BACKENDS = 10_000;
export const MAX_SOURCE_RANGES = 100;
export const MAX_ADDRESSES = 16;

const nameRe = new RegExp(RESOURCE_NAME_PATTERN);
const instanceNameRe = new RegExp(INSTANCE_NAME_PATTERN);
const instanceIdRe = new RegExp(INSTANCE_ID_PATTERN);
const instanceTypeRe = new RegExp(INSTANCE_TYPE_PATTERN);

export const isResourceName = (s: string): boolean => nameRe.test(s);
export const isInstanceName = (s: string): boolean => instanceNameRe.test(s);
/** Paths under /v1/instances/ that are endpoints, so no instance may take them as its id. */
export const RESERVED_INSTANCE_IDS: ReadonlySet<string> = new Set(['by-ids', 'by-names']);
/** The most ids or names one by-ids / by-names request may ask for. */
export const MAX_INSTANCES_PER_LOOKUP = 100;

export const isInstanceId = (s: string): boolean => instanceIdRe.test(s) && !RESERVED_INSTANCE_IDS.has(s);
export const isInstanceType = (s: string): boolean => instanceTypeRe.test(s);

/** JSON schema for a string->string map (labels, tags). */
export const tagsSchema = {
  type: 'object',
  maxProperties: MAX_TAGS,
  propertyNames: { minLength: 1, maxLength: TAG_KEY_MAX },
  additionalProperties: { type: 'string', maxLength: TAG_VALUE_MAX },
} as const;

/** Checks what tagsSchema checks, for callers that bypass HTTP. Returns a problem or null. */
export function tagsProblem(tags: Record<string, string>): string | null {
  const entries = Object.entries(tags);
  if (entries.length > MAX_TAGS) return `at most ${MAX_TAGS} entries`;
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > TAG_KEY_MAX) return `key "${k}" must be 1..${TAG_KEY_MAX} characters`;
    if (typeof v !== 'string' || v.length > TAG_VALUE_MAX)
      return `value of "${k}" must be a string of at most ${TAG_VALUE_MAX}`;
  }
  return null;
}

// JSON schemas shared by several routes. additionalProperties is false everywhere: a typo in a
// provider's request is a 400 naming the field, not a silently ignored setting.
import {
  DESCRIPTION_MAX,
  INSTANCE_ID_PATTERN,
  INSTANCE_NAME_MAX,
  INSTANCE_NAME_PATTERN,
  INSTANCE_TYPE_PATTERN,
  MAX_ADDRESSES,
  MAX_BACKENDS,
  MAX_LISTENERS,
  MAX_SOURCE_RANGES,
  RESOURCE_NAME_MAX,
  RESOURCE_NAME_PATTERN,
  tagsSchema,
} from '../model/limits.ts';
import { ADDRESS_TYPES, PROTOCOLS } from '../model/types.ts';

export { tagsSchema };

export const resourceName = {
  type: 'string',
  minLength: 1,
  maxLength: RESOURCE_NAME_MAX,
  pattern: RESOURCE_NAME_PATTERN,
};
export const instanceId = { type: 'string', minLength: 1, maxLength: 63, pattern: INSTANCE_ID_PATTERN };
export const instanceName = {
  type: 'string',
  minLength: 1,
  maxLength: INSTANCE_NAME_MAX,
  pattern: INSTANCE_NAME_PATTERN,
};
export const instanceType = { type: 'string', minLength: 1, maxLength: 63, pattern: INSTANCE_TYPE_PATTERN };
export const port = { type: 'integer', minimum: 1, maximum: 65535 };
export const description = { type: 'string', maxLength: DESCRIPTION_MAX };
/** Shape only: the stores check that each entry parses as a CIDR and say which one does not. */
export const cidr = { type: 'string', minLength: 1, maxLength: 64 };

export const addresses = {
  type: 'array',
  maxItems: MAX_ADDRESSES,
  items: {
    type: 'object',
    required: ['type', 'address'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: ADDRESS_TYPES },
      address: { type: 'string', minLength: 1, maxLength: 253 },
    },
  },
} as const;

export const listeners = {
  type: 'array',
  maxItems: MAX_LISTENERS,
  items: {
    type: 'object',
    required: ['protocol', 'port', 'nodePort'],
    additionalProperties: false,
    properties: { protocol: { type: 'string', enum: PROTOCOLS }, port, nodePort: port },
  },
} as const;

export const loadBalancerSpecProperties = {
  listeners,
  backendInstanceIds: { type: 'array', maxItems: MAX_BACKENDS, items: instanceId },
  sourceRanges: { type: 'array', maxItems: MAX_SOURCE_RANGES, items: cidr },
  healthCheckNodePort: { anyOf: [port, { type: 'null' }] },
  tags: tagsSchema,
  description,
} as const;

/** "key=value" or "key"; repeat the parameter to require several. */
export const tagFilterQuery = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 400 } } as const;

export const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 253 } },
} as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 63 } },
} as const;

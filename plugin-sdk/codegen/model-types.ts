// The shapes of the ABI model: what model.ts parses plugin-sdk/abi/v1.json into (with facade-model.ts for the
// methods' facade metadata) and the emitters walk. Types only, so both parsers and every emitter build on it.

export type FieldType =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'i32' }
  | { kind: 'f64' }
  | { kind: 'map' }
  | { kind: 'list'; of: FieldType }
  | { kind: 'ref'; name: string }
  | { kind: 'enum'; name: string; values: readonly string[] };

export interface Field {
  name: string;
  type: FieldType;
  /** The minor that added the field: 0 for 1.0. Fields added later are optional on the wire (absent from older peers). */
  since: number;
  /**
   * Set on a list-reference field (an i32 naming a list the instance keeps, ABI 1.2): the list field of the same type
   * it stands for. See ABI.md, "Kept lists".
   */
  refOf: string | null;
}

export interface TypeDef {
  name: string;
  doc: string;
  fields: Field[];
}

/** What a Provider method answers: one field of the response, the whole response, or nothing (void). */
export type Returns = { kind: 'field'; field: Field } | { kind: 'response' } | { kind: 'nothing' };

export interface Facade {
  /** The request fields the Provider method takes as arguments, in argument order. */
  params: Field[];
  returns: Returns;
  /** The argument naming the object shadow mode compares answers for (read-only methods only), or null. */
  shadow: Field | null;
  /** A line for the generated interface, or "". */
  doc: string;
}

export interface MethodDef {
  name: string;
  exportName: string;
  capability: string | null;
  request: string;
  response: string;
  mayBeImplementedElsewhere: boolean;
  /**
   * The minor that added the method: 0 for 1.0. A later method is optional: a plugin may leave it out, so declaring
   * its capability does not require it.
   */
  since: number;
  /**
   * The per-node methods a batched method answers for many nodes at once (ABI.md, "Batched calls"): one for a plain
   * batch, several for a combined one (each asked for the nodes every earlier one answered true for); empty when the
   * method is not batched.
   */
  batchOf: string[];
  /** How the host's Provider facades call it; null for the methods of no capability. */
  facade: Facade | null;
}

export interface HostFunctionDef {
  name: string;
  request: string | null;
  response: string | null;
  error: string | null;
}

export interface AbiModel {
  major: number;
  minor: number;
  errorCodes: string[];
  capabilities: string[];
  enums: Map<string, readonly string[]>;
  types: Map<string, TypeDef>;
  methods: MethodDef[];
  hostFunctions: HostFunctionDef[];
}

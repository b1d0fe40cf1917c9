// A valid request for any ABI method, built from the fixture and the method's request fields as the ABI definition
// lists them (REQUEST_FIELDS), so a method added to plugin-sdk/abi/v1.json gets its NotImplemented and answer-shape
// checks without an edit here. Fields are filled by name where the name says what they hold, else by type.
import { type MethodName, REQUEST_FIELDS, type Requests, validateRequest } from '../abi/index.ts';
import type { Fixture } from './fixture.ts';

class SampleRequestError extends Error {
  readonly code = 'CONFORMANCE_SAMPLE_REQUEST';
  constructor(method: string, detail: string) {
    super(`cannot build a sample ${method} request: ${detail}`);
    this.name = 'SampleRequestError';
  }
}

function valuesFor(f: Fixture): { byName: Record<string, unknown>; byType: Record<string, unknown> } {
  const node = f.running[0]!;
  const route = {
    name: '',
    targetNode: node.name,
    targetNodeAddresses: [],
    destinationCIDR: '10.250.0.0/24',
    blackhole: false,
  };
  return {
    byName: {
      clusterName: f.clusterName,
      nodeName: node.name,
      providerID: node.providerID || 'unknown://x',
      nameHint: node.uid,
    },
    byType: { Node: node, Service: f.service, Route: route, 'list<Node>': [node], string: '', bool: false, i32: 0 },
  };
}

// Zero values of the remaining types the definition allows; an object type without a fixture value has none.
function zeroOf(type: string): unknown {
  if (type.startsWith('list<')) return [];
  if (type === 'f64') return 0;
  if (type === 'map') return {};
  return undefined;
}

/** A valid request for `method` (for calls whose answer only has to be NotImplemented or well-formed). */
export function sampleRequest<M extends MethodName>(method: M, f: Fixture): Requests[M] {
  const { byName, byType } = valuesFor(f);
  const request: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(REQUEST_FIELDS[method] as Readonly<Record<string, string>>)) {
    const value = Object.hasOwn(byName, name)
      ? byName[name]
      : Object.hasOwn(byType, type)
        ? byType[type]
        : zeroOf(type);
    if (value === undefined) throw new SampleRequestError(method, `no sample value for field ${name} of type ${type}`);
    request[name] = value;
  }
  // An enum-typed field, or a name filled with the wrong type, shows here rather than as a confusing plugin answer.
  const checked = validateRequest(method, request);
  if (!checked.ok) throw new SampleRequestError(method, checked.error);
  return checked.value;
}

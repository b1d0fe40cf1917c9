// Whether a brokered request may change something in the cloud: what the lease fence (lease-fence.ts) asks before
// letting a request out of a replica that is not the fresh leader. It judges what the request does, not its method
// string alone:
//   - GET, HEAD and OPTIONS read, unless they carry a body (a server may act on it) or name a Query API action that
//     is not a read (`?Action=TerminateInstances`: EC2's Query API takes GET as well as POST);
//   - POST reads only where the endpoint is declared to speak the AWS Query API (an awsSigV4 credential for one of
//     its services, postReads: 'awsQuery') and its form body names only read actions (`Describe*`, `Get*`, `List*`);
//   - every other method, and anything this file cannot read with certainty (a malformed escape, a body of
//     another type), changes something.
// Method-override headers (X-HTTP-Method-Override and its two cousins) are refused whatever the lease, by the
// broker: a server honoring one runs another method than the request line says, and the broker cannot know which
// servers do. Dropping them instead would send a request the plugin did not ask for (a POST it meant as a DELETE).

/** Headers that ask a server to run another method than the request line's. */
export const METHOD_OVERRIDE_HEADERS: ReadonlySet<string> = new Set([
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]);

/** A protocol whose POSTs may be reads, as a credential entry declares it. */
export type PostReads = 'awsQuery';

export interface EffectRequest {
  /** Upper case. */
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  body: Uint8Array | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// AWS Query API actions that only read: DescribeInstances, GetConsoleOutput, ListTagsForResource...
const READ_ACTION = /^(?:Describe|Get|List)[A-Z][A-Za-z0-9]*$/;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
// A query worth parsing names an action, or hides the name behind escapes.
const MAY_NAME_ACTION = /action|%/i;

/**
 * Why `request` may change something ('' for a method that does by definition), or undefined when it only reads.
 * `postReads` is what the endpoint's credential declares about its POSTs.
 */
export function mutationReason(request: EffectRequest, postReads?: PostReads): string | undefined {
  const { method, url, body } = request;
  const queryActions = MAY_NAME_ACTION.test(url.search) ? actionsOf(url.search.slice(1)) : [];
  if (queryActions === undefined) return 'its query cannot be read';
  const mutatingAction = queryActions.find((action) => !READ_ACTION.test(action));
  if (mutatingAction !== undefined) return `the query's Action=${mutatingAction.slice(0, 64)} is not a read`;
  const hasBody = body !== undefined && body.byteLength > 0;
  if (SAFE_METHODS.has(method)) return hasBody ? 'it carries a body, which a server may act on' : undefined;
  if (method !== 'POST' || postReads !== 'awsQuery' || !hasBody) return '';
  return queryPostReason(request.headers['content-type'], body);
}

// A Query API POST reads when its form body names actions, all of them reads.
function queryPostReason(contentType: string | undefined, body: Uint8Array): string | undefined {
  if (contentType === undefined || !FORM_TYPE.test(contentType)) return '';
  const actions = actionsOf(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'));
  if (actions === undefined) return 'its form body cannot be read';
  if (actions.length === 0) return 'its form body names no Action';
  const mutating = actions.find((action) => !READ_ACTION.test(action));
  return mutating === undefined ? undefined : `Action=${mutating.slice(0, 64)} is not a read`;
}

/**
 * The values of every `Action` parameter of a form or query (name matched in any case once decoded, `&` or `;`
 * separated, `+` a space); undefined when a name or such a value is not valid percent-encoding.
 */
export function actionsOf(text: string): string[] | undefined {
  const actions: string[] = [];
  for (const part of text.split(/[&;]/)) {
    const eq = part.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? part : part.slice(0, eq));
    if (name === undefined) return undefined;
    if (name.toLowerCase() !== 'action') continue;
    const value = decodeFormComponent(eq === -1 ? '' : part.slice(eq + 1));
    if (value === undefined) return undefined;
    actions.push(value);
  }
  return actions;
}

function decodeFormComponent(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

// Kubeconfig impersonation (a user's `as`, `as-uid`, `as-groups`, `as-user-extra`), as client-go does it: the CCM
// authenticates as its own user and asks the apiserver to act as another through Impersonate-* headers on every
// request, watches included. The apiserver checks that the authenticated user may `impersonate` each of them and
// then authorizes the request as the impersonated user.
import type { ApiserverCredentials } from './credentials.ts';

export interface Impersonation {
  user: string;
  uid: string | undefined;
  groups: readonly string[];
  /** Extra fields (scopes and the like): key -> values. */
  extra: Readonly<Record<string, readonly string[]>>;
}

/** The credentials with the Impersonate-* headers added to the headers that authenticate each request. */
export function withImpersonation(inner: ApiserverCredentials, impersonation: Impersonation): ApiserverCredentials {
  const headers = impersonationHeaders(impersonation);
  return {
    server: inner.server,
    authHeaders: async () => ({ ...(await inner.authHeaders()), ...headers }),
    transport: () => inner.transport(),
  };
}

function impersonationHeaders(impersonation: Impersonation): Record<string, string> {
  const headers: Record<string, string> = { 'Impersonate-User': impersonation.user };
  if (impersonation.uid !== undefined) headers['Impersonate-Uid'] = impersonation.uid;
  Object.assign(headers, repeated('Impersonate-Group', impersonation.groups));
  for (const [key, values] of Object.entries(impersonation.extra)) {
    Object.assign(headers, repeated(`Impersonate-Extra-${escapeExtraKey(key)}`, values));
  }
  return headers;
}

// Several groups are several header lines of one name. The request layer takes one value per name, so each value
// gets its own spelling of the name: names are case-insensitive, a field that holds a list may be repeated, and the
// apiserver (Go's textproto) gathers every spelling under the canonical name, in order.
function repeated(name: string, values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const letters = [...name].flatMap((c, i) => (/[a-z]/i.test(c) ? [i] : []));
  if (values.length > 2 ** letters.length) throw new RangeError(`too many values for ${name}`);
  values.forEach((value, n) => {
    const chars = [...name];
    letters.forEach((at, bit) => {
      const c = chars[at] as string;
      if ((n >> bit) & 1) chars[at] = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    });
    out[chars.join('')] = value;
  });
  return out;
}

// client-go's headerKeyEscape: bytes that may not appear in a header name, and '%', are percent-encoded; the
// apiserver decodes them (and lower-cases the key).
const HEADER_NAME_BYTE = /^[!#$&'*+.^_`|~0-9A-Za-z-]$/;

function escapeExtraKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += HEADER_NAME_BYTE.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// AWS Signature Version 4 for requests the host makes on a plugin's behalf. The signing itself is AWS's own
// @smithy/signature-v4 (the signer of the AWS SDK for JavaScript v3); this file turns a brokered request into the
// signer's shape and back, and gives it SHA-256 from node:crypto.
//
// The query is sent exactly as it was signed: the signer canonicalizes the query (RFC 3986 encoding), and a server
// that checks the signature against the query as received (as moto and botocore do) would refuse a request whose
// query was encoded otherwise (`~` as %7E, a space as `+`...). So each name and value is decoded and re-encoded
// the canonical way, in the plugin's order; an already canonical query is unchanged.
import { createHash, createHmac, createSecretKey, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsAccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) come with one; sent as X-Amz-Security-Token. */
  sessionToken?: string;
}

export interface SigV4Scope {
  region: string;
  service: string;
}

export interface SignableRequest {
  method: string;
  url: URL;
  /** Lower-case names; every header here is signed except the few SigV4 never signs (user-agent...). */
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface SignedParts {
  /** The headers to add: authorization, x-amz-date, x-amz-content-sha256 and, with a session token, x-amz-security-token. */
  headers: Record<string, string>;
  /** The query to send (`?…`, or '' for none): the plugin's, canonically encoded. */
  search: string;
}

export class SigV4Error extends Error {
  override name = 'SigV4Error';
  readonly code = 'SIGV4_UNSIGNABLE';
}

// The headers the signer adds; everything else it returns was in the request already.
const ADDED_HEADERS = ['authorization', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'] as const;

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/**
 * SHA-256, or HMAC-SHA256 with `secret`, as the signer's checksum. Not the SDK's own (@smithy/core's Hash): it hands
 * createHmac the key as a Buffer, which costs ~9 us per HMAC on Node 24 against ~3 us for the same key as a KeyObject
 * (`node bench/plugin-runtime/sigv4-hmac.ts`), and a signature takes three HMACs.
 */
class Sha256 {
  readonly #secret: Buffer | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytes(secret);
    this.#hash = this.#fresh();
  }

  update(data: SourceData): void {
    this.#hash.update(typeof data === 'string' ? data : bytes(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', createSecretKey(this.#secret));
  }
}

export interface SigV4Options {
  /**
   * Send and sign X-Amz-Content-Sha256 (default true, as the AWS SDK for JavaScript does). The payload's hash is part
   * of the signature either way; AWS's test suite signs some requests without the header.
   */
  payloadHashHeader?: boolean;
}

export class SigV4Signer {
  readonly #signer: SignatureV4;

  constructor(key: AwsAccessKey, scope: SigV4Scope, options: SigV4Options = {}) {
    this.#signer = new SignatureV4({
      credentials: {
        accessKeyId: key.accessKeyId,
        secretAccessKey: key.secretAccessKey,
        ...(key.sessionToken !== undefined ? { sessionToken: key.sessionToken } : {}),
      },
      region: scope.region,
      service: scope.service,
      sha256: Sha256,
      // Every service but S3 signs the path URI-encoded a second time; the broker signs no S3 requests.
      uriEscapePath: true,
      applyChecksum: options.payloadHashHeader ?? true,
    });
  }

  /** Signs `request` as of `now`. Throws SigV4Error for a query that is not valid percent-encoding. */
  async sign(request: SignableRequest, now: Date = new Date()): Promise<SignedParts> {
    const pairs = queryPairs(request.url.search);
    const signed = await this.#signer.sign(
      {
        method: request.method,
        protocol: request.url.protocol,
        hostname: request.url.hostname,
        path: request.url.pathname,
        query: queryMap(pairs),
        // The transport writes Host as url.host (the port only when it is not the scheme's default).
        headers: { ...request.headers, host: request.url.host },
        ...(request.body !== undefined && request.body.byteLength > 0 ? { body: request.body } : {}),
      },
      { signingDate: now },
    );
    const headers: Record<string, string> = {};
    for (const name of ADDED_HEADERS) {
      const value = signed.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    return { headers, search: pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` };
  }
}

// The query parameters of a presigned request (SigV4 in the query rather than in Authorization): a request the host
// signs must carry no signature of anyone else's, which a server might check instead of the host's.
const PRESIGNING_PARAMETERS = new Set(
  ['Algorithm', 'Credential', 'Date', 'Expires', 'SignedHeaders', 'Signature', 'Security-Token'].map((name) =>
    `x-amz-${name}`.toLowerCase(),
  ),
);

/** The first presigning parameter of `search` (`X-Amz-Signature`..., matched in any case once decoded), if any. */
export function presigningParameter(search: string): string | undefined {
  if (search.length <= 1 || !/x-amz-|%/i.test(search)) return undefined;
  for (const part of search.slice(1).split('&')) {
    const eq = part.indexOf('=');
    const raw = eq === -1 ? part : part.slice(0, eq);
    let name = raw;
    try {
      name = decodeURIComponent(raw);
    } catch {
      // Signing refuses a malformed escape anyway; the name is judged as written.
    }
    if (PRESIGNING_PARAMETERS.has(name.toLowerCase())) return name;
  }
  return undefined;
}

/** RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 requires. */
export function awsUriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

// The query's name=value pairs, each canonically encoded, in their order ('a' alone is 'a=').
function queryPairs(search: string): Array<[string, string]> {
  if (search.length <= 1) return [];
  return search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const value = eq === -1 ? '' : part.slice(eq + 1);
      return [awsUriEncode(decode(name)), awsUriEncode(decode(value))];
    });
}

// The signer's query map holds decoded names and values (it encodes them itself); a repeated name has a list.
function queryMap(pairs: Array<[string, string]>): Record<string, string | string[]> {
  // No prototype: a query may name its parameter `__proto__`.
  const map = Object.create(null) as Record<string, string | string[]>;
  for (const [encodedName, encodedValue] of pairs) {
    const name = decodeURIComponent(encodedName);
    const value = decodeURIComponent(encodedValue);
    const seen = map[name];
    if (seen === undefined) map[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else map[name] = [seen, value];
  }
  return map;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SigV4Error(`cannot sign the request: its query has a malformed percent-escape in '${text.slice(0, 80)}'`);
  }
}

// Where the host gets temporary AWS credentials when an awsSigV4 entry names no key files: the sources of the AWS
// SDKs' default chain, each asked over the host's own HTTP client (LoginExchange), never through a plugin.
//
// - environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN of the host's process;
// - webIdentity (IRSA): the projected service account token, read anew for every call, exchanged for a role's
//   credentials by STS AssumeRoleWithWebIdentity (an unsigned POST: the token is the proof);
// - container (EKS Pod Identity, ECS): a GET of AWS_CONTAINER_CREDENTIALS_FULL_URI (or the RELATIVE_URI on
//   169.254.170.2) with the authorization token, read anew from its file for every call;
// - instanceProfile: IMDSv2 (a session token from PUT /latest/api/token, then the role's credentials), and the
//   instance's region and zone from the same session.
//
// A source that is not set up (no variable, no metadata service) throws SourceNotFound, which the chain passes over;
// a source that is set up and fails throws LoginError, which ends the chain (as the SDKs do: a broken IRSA set-up
// must not fall back to the node's instance role unnoticed). Messages never include a key or a token.
import { readRegularFile, KEY_FILE_CAP } from '../../util/read-regular-file.ts';
import { errorMessage } from '../../util/error-message.ts';
import { isLoopback } from './allow-list.ts';
import { type LoginExchange, LoginError, type LoginResponse } from './login-flow.ts';
import type { AwsAccessKey } from './sigv4-signer.ts';
import {
  type AwsCredentialSettings,
  checkMetadataEndpoint,
  DEFAULT_IMDS_ENDPOINT,
  STS_VERSION,
} from './aws-credential-settings.ts';
import { CredentialFileError } from './credential-file-error.ts';

export type AwsSourceName = 'environment' | 'webIdentity' | 'container' | 'instanceProfile';

/** Temporary credentials and when they end (wall clock); none: they do not expire (environment). */
export interface AwsCredentials {
  key: AwsAccessKey;
  expiration?: Date;
  /** The instance's placement, when the instance metadata service gave the credentials. */
  placement?: { region: string; zone: string };
  /** Other secret values of the exchange (a web identity token): redacted like the key. */
  exchangeSecrets: string[];
}

/** The source is not set up here; the chain tries the next. */
export class SourceNotFound extends Error {
  override name = 'SourceNotFound';
}

// The SDKs' timeouts for the metadata services: an instance that has one answers within milliseconds.
export const METADATA_TIMEOUT_MS = 1000;
const IMDS_TOKEN_TTL_SECONDS = 21600;
// The hosts a container credentials URI may name over plain http (the SDKs' list): ECS's and EKS Pod Identity's
// link-local agents, and loopback.
const CONTAINER_HTTP_HOSTS = new Set(['169.254.170.2', '169.254.170.23', '[fd00:ec2::23]']);
const CONTAINER_RELATIVE_HOST = 'http://169.254.170.2';
const MAX_MESSAGE = 300;

export type Env = Readonly<Record<string, string | undefined>>;

export function fromEnvironment(env: Env): AwsCredentials {
  const id = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  if (!id || !secret) throw new SourceNotFound('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set');
  const token = env.AWS_SESSION_TOKEN;
  return {
    key: { accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) },
    exchangeSecrets: [],
  };
}

export async function fromWebIdentity(
  settings: AwsCredentialSettings,
  env: Env,
  exchange: LoginExchange,
): Promise<AwsCredentials> {
  const roleARN = settings.roleARN ?? env.AWS_ROLE_ARN;
  const tokenFile = settings.webIdentityTokenFile ?? env.AWS_WEB_IDENTITY_TOKEN_FILE;
  if (!roleARN || !tokenFile) {
    throw new SourceNotFound(
      'no role ARN and web identity token file (roleARN/AWS_ROLE_ARN, webIdentityTokenFile/AWS_WEB_IDENTITY_TOKEN_FILE)',
    );
  }
  // Kubernetes rotates the projected token: read for every call, never kept.
  const token = (await readText(tokenFile, 'web identity token file')).trim();
  if (token === '' || !/^[!-~]+$/.test(token))
    throw new LoginError(`web identity token file ${tokenFile} holds no token`);
  const sessionName = settings.roleSessionName ?? env.AWS_ROLE_SESSION_NAME ?? `wasm-ccm-${Date.now()}`;
  const endpoint = stsEndpoint(settings, env);
  const body = new URLSearchParams({
    Action: 'AssumeRoleWithWebIdentity',
    Version: STS_VERSION,
    RoleArn: roleARN,
    RoleSessionName: sessionName,
    WebIdentityToken: token,
  });
  const response = await exchange({
    method: 'POST',
    url: new URL('/', endpoint),
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'text/xml' },
    body: new TextEncoder().encode(body.toString()),
  });
  const text = response.body.toString('utf8');
  if (response.status !== 200) {
    throw new LoginError(
      `STS ${endpoint} answered ${response.status}${stsError(text, token)} (role ${roleARN})`,
      response.status,
    );
  }
  return { ...parseStsCredentials(text, 'AssumeRoleWithWebIdentity'), exchangeSecrets: [token] };
}

export async function fromContainer(env: Env, exchange: LoginExchange): Promise<AwsCredentials> {
  const url = containerURL(env);
  const headers: Record<string, string> = { accept: 'application/json' };
  const tokenFile = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  // EKS Pod Identity rotates the token in its file: read for every call.
  const token = tokenFile
    ? (await readText(tokenFile, 'container authorization token file')).trim()
    : env.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  if (token !== undefined && token !== '') {
    if (/[\r\n]/.test(token)) throw new LoginError('the container authorization token holds a line break');
    headers.authorization = token;
  }
  const response = await metadataExchange(
    exchange,
    { method: 'GET', url, headers },
    `container credentials ${url.origin}`,
  );
  if (response.status !== 200) {
    throw new LoginError(
      `container credentials ${url.href} answered ${response.status}${plainMessage(response.body, token)}`,
      response.status,
    );
  }
  return {
    ...parseJsonCredentials(response.body, `container credentials ${url.href}`),
    exchangeSecrets: token ? [token] : [],
  };
}

function containerURL(env: Env): URL {
  const relative = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
  const full = env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  if (relative) return new URL(relative, CONTAINER_RELATIVE_HOST);
  if (!full) throw new SourceNotFound('AWS_CONTAINER_CREDENTIALS_FULL_URI and _RELATIVE_URI are not set');
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    throw new LoginError(`AWS_CONTAINER_CREDENTIALS_FULL_URI is not a URL`);
  }
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && (isLoopback(host) || CONTAINER_HTTP_HOSTS.has(host))) return url;
  throw new LoginError(
    `AWS_CONTAINER_CREDENTIALS_FULL_URI ${url.origin}: plain http only to loopback or the ECS/EKS agents (169.254.170.2, 169.254.170.23, [fd00:ec2::23])`,
  );
}

/** IMDSv2: a session token, the instance's role, its credentials, and the placement. */
export async function fromInstanceProfile(
  settings: AwsCredentialSettings,
  env: Env,
  exchange: LoginExchange,
): Promise<AwsCredentials> {
  if (env.AWS_EC2_METADATA_DISABLED?.toLowerCase() === 'true')
    throw new SourceNotFound('AWS_EC2_METADATA_DISABLED is true');
  const base = metadataEndpoint(settings, env);
  const what = `instance metadata ${base}`;
  const tokenAnswer = await metadataExchange(
    exchange,
    {
      method: 'PUT',
      url: new URL('/latest/api/token', base),
      headers: { 'x-aws-ec2-metadata-token-ttl-seconds': String(IMDS_TOKEN_TTL_SECONDS) },
    },
    what,
  );
  if (tokenAnswer.status !== 200)
    throw new LoginError(`${what} answered ${tokenAnswer.status} to PUT /latest/api/token`, tokenAnswer.status);
  const token = tokenAnswer.body.toString('utf8').trim();
  const get = async (path: string): Promise<string> => {
    const answer = await metadataExchange(
      exchange,
      { method: 'GET', url: new URL(path, base), headers: { 'x-aws-ec2-metadata-token': token } },
      what,
    );
    if (answer.status === 404 && path.endsWith('/security-credentials/')) {
      throw new LoginError(`${what}: the instance has no instance profile (404 for ${path})`, 404);
    }
    if (answer.status !== 200) throw new LoginError(`${what} answered ${answer.status} to GET ${path}`, answer.status);
    return answer.body.toString('utf8').trim();
  };
  const role = (await get('/latest/meta-data/iam/security-credentials/')).split('\n')[0]?.trim() ?? '';
  if (!/^[\w+=,.@-]{1,128}$/.test(role)) throw new LoginError(`${what}: no role name under iam/security-credentials/`);
  const credentials = parseJsonCredentials(
    Buffer.from(await get(`/latest/meta-data/iam/security-credentials/${role}`)),
    `${what} (role ${role})`,
  );
  const [region, zone] = await Promise.all([
    get('/latest/meta-data/placement/region'),
    get('/latest/meta-data/placement/availability-zone'),
  ]);
  return { ...credentials, placement: { region, zone }, exchangeSecrets: [token] };
}

// The entry's endpoint, else the SDKs' variable, else AWS's regional STS endpoint.
function stsEndpoint(settings: AwsCredentialSettings, env: Env): string {
  if (settings.stsEndpoint !== undefined) return settings.stsEndpoint;
  const fromEnv = env.AWS_ENDPOINT_URL_STS;
  if (fromEnv) {
    if (!fromEnv.startsWith('https://')) throw new LoginError(`AWS_ENDPOINT_URL_STS must be https, not ${fromEnv}`);
    return new URL(fromEnv).origin;
  }
  return `https://sts.${settings.region}.amazonaws.com`;
}

function metadataEndpoint(settings: AwsCredentialSettings, env: Env): string {
  if (settings.instanceMetadataEndpoint !== undefined) return settings.instanceMetadataEndpoint;
  const fromEnv = env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
  if (!fromEnv) return DEFAULT_IMDS_ENDPOINT;
  try {
    const url = new URL(fromEnv);
    checkMetadataEndpoint(url, 'AWS_EC2_METADATA_SERVICE_ENDPOINT');
    return url.origin;
  } catch (err) {
    throw new LoginError(
      err instanceof CredentialFileError ? err.message : 'AWS_EC2_METADATA_SERVICE_ENDPOINT is not a URL',
    );
  }
}

// Not answering at all means no such service here (not on EC2, no agent): the chain goes on.
async function metadataExchange(
  exchange: LoginExchange,
  request: Parameters<LoginExchange>[0],
  what: string,
): Promise<LoginResponse> {
  try {
    return await exchange({ ...request, timeoutMs: METADATA_TIMEOUT_MS });
  } catch (err) {
    throw new SourceNotFound(`${what} did not answer: ${errorMessage(err)}`);
  }
}

/** The Credentials of an STS `<action>Response`. */
export function parseStsCredentials(xml: string, action: string): Pick<AwsCredentials, 'key' | 'expiration'> {
  const within = new RegExp(`<${action}Result>[\\s\\S]*<Credentials>([\\s\\S]*?)</Credentials>`).exec(xml)?.[1];
  if (within === undefined) throw new LoginError(`STS answered no ${action}Result with Credentials`);
  const field = (name: string): string => {
    const value = xmlText(new RegExp(`<${name}>([^<]*)</${name}>`).exec(within)?.[1])?.trim();
    if (!value) throw new LoginError(`STS answered Credentials without ${name}`);
    return value;
  };
  return checked(
    {
      AccessKeyId: field('AccessKeyId'),
      SecretAccessKey: field('SecretAccessKey'),
      Token: field('SessionToken'),
      Expiration: field('Expiration'),
    },
    'STS',
  );
}

/** The credentials JSON of IMDS and of the container credentials endpoint (`AccessKeyId`, `Token`, `Expiration`...). */
export function parseJsonCredentials(body: Buffer, what: string): Pick<AwsCredentials, 'key' | 'expiration'> {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new LoginError(`${what} answered no JSON`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new LoginError(`${what} answered no JSON object`);
  const fields = doc as Record<string, unknown>;
  if (fields.Code !== undefined && fields.Code !== 'Success') {
    throw new LoginError(`${what} answered Code ${JSON.stringify(fields.Code).slice(0, 80)}`);
  }
  return checked(fields, what);
}

function checked(fields: Record<string, unknown>, what: string): Pick<AwsCredentials, 'key' | 'expiration'> {
  const text = (name: string, pattern: RegExp): string => {
    const value = fields[name];
    if (typeof value !== 'string' || !pattern.test(value)) throw new LoginError(`${what} answered no valid ${name}`);
    return value;
  };
  const accessKeyId = text('AccessKeyId', /^[A-Za-z0-9-]{1,128}$/);
  const secretAccessKey = text('SecretAccessKey', /^[!-~]{1,1024}$/);
  const sessionToken = text('Token', /^[!-~]{1,16384}$/);
  const expiration = new Date(text('Expiration', /^\d{4}-\d\d-\d\dT/));
  if (Number.isNaN(expiration.getTime())) throw new LoginError(`${what} answered an Expiration that is not a time`);
  return { key: { accessKeyId, secretAccessKey, sessionToken }, expiration };
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return (await readRegularFile(file, KEY_FILE_CAP)).toString('utf8');
  } catch (err) {
    throw new LoginError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
}

// STS's <Code> and <Message>, without the token should a message quote it.
function stsError(xml: string, token: string): string {
  const code = xmlText(/<Code>([^<]{1,100})<\/Code>/.exec(xml)?.[1]);
  const message = xmlText(/<Message>([^<]*)<\/Message>/.exec(xml)?.[1])?.slice(0, MAX_MESSAGE);
  if (code === undefined) return '';
  return ` (${code}${message ? `: ${message.split(token).join('[REDACTED]')}` : ''})`;
}

function plainMessage(body: Buffer, token: string | undefined): string {
  const text = body.toString('utf8').slice(0, MAX_MESSAGE).replace(/\s+/g, ' ').trim();
  if (text === '') return '';
  return ` (${token ? text.split(token).join('[REDACTED]') : text})`;
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };

function xmlText(text: string | undefined): string | undefined {
  return text
    ?.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => XML_ENTITIES[name] ?? '')
    .replace(/&#(\d{1,7});/g, (_, code: string) => String.fromCodePoint(Number(code)));
}

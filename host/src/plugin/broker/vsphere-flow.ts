// The vSphere login flow (login-flow.ts): two sessions from one account, as vCenter keeps them apart. The SOAP API
// (`/sdk`: inventory, VMs, power) takes the `vmware_soap_session` cookie of `SessionManager.Login` (found through
// `RetrieveServiceContent`, the password in the XML body); the REST API (`/rest/`: tagging, which zones come from)
// takes `vmware-api-session-id` from `POST /rest/com/vmware/cis/session` with basic auth. Each refuses the other's.
// vCenter ends a session after it was idle for a while (30 min by default) rather than at a fixed age: a refusal
// (SOAP: HTTP 500 with a NotAuthenticated fault; REST: 401) makes one new login of both, as govmomi's clients log in
// again when a session is gone.
import type { Credential } from './credential-file.ts';
import {
  type LoginExchange,
  LoginError,
  type LoginFlow,
  type LoginResponse,
  type LoginSession,
  type SessionAnswer,
} from './login-flow.ts';
import type { LoginEntry } from './login-sessions.ts';
import { readVsphereLogin, type VsphereEntry, type VsphereLogin } from './vsphere-entry.ts';

/** What a vSphere login learnt: the API version the SOAP session speaks. */
export interface VsphereSessionData {
  apiVersion: string;
}

// Idle sessions end on the server's side; the keeper renews this long after a login even if they are in use.
const SESSION_LIFETIME_MS = 12 * 3600_000;
// The version RetrieveServiceContent is asked in: every vCenter from 6.5 answers it.
const BOOTSTRAP_VERSION = '6.5';
const SOAP_COOKIE = 'vmware_soap_session';
const REST_HEADER = 'vmware-api-session-id';
// A session id or cookie value: printable, no separators that would break the header it goes in.
const SESSION_VALUE = /^[!#-+\--:<-~]{1,4096}$/;
const MAX_MESSAGE = 300;
// A fault is small; an answer this long that has not shown one by then is not a refusal.
const FAULT_SCAN_BYTES = 65_536;

export class VsphereFlow implements LoginFlow<VsphereSessionData> {
  readonly kind = 'vsphere';
  readonly target: string;
  readonly secrets: readonly string[];
  readonly #login: VsphereLogin;
  readonly #basic: string;

  constructor(login: VsphereLogin) {
    this.#login = login;
    this.target = `vsphere https://${login.server}`;
    this.#basic = Buffer.from(`${login.username}:${login.password}`, 'utf8').toString('base64');
    this.secrets = [login.password, this.#basic];
  }

  async logIn(exchange: LoginExchange): Promise<LoginSession<VsphereSessionData>> {
    const { sessionManager, apiVersion } = await this.#serviceContent(exchange);
    const body = soapEnvelope(
      `<Login xmlns="urn:vim25"><_this type="SessionManager">${xmlEscape(sessionManager)}</_this>` +
        `<userName>${xmlEscape(this.#login.username)}</userName>` +
        `<password>${xmlEscape(this.#login.password)}</password></Login>`,
    );
    const soap = await exchange(this.#soapRequest(body, apiVersion));
    if (soap.status !== 200)
      throw new LoginError(`SOAP Login answered ${soap.status}${faultMessage(soap)}`, soap.status);
    const cookie = soapCookie(soap.headers['set-cookie']);
    if (cookie === undefined) {
      throw new LoginError(`SOAP Login answered ${soap.status} without a usable ${SOAP_COOKIE} cookie`, soap.status);
    }
    const sessionId = await this.#restLogin(exchange);
    return {
      headers: {},
      routes: [
        { pathPrefix: '/sdk', headers: { cookie: `${SOAP_COOKIE}=${cookie}` } },
        { pathPrefix: '/rest/', headers: { [REST_HEADER]: sessionId } },
      ],
      lifetimeMs: SESSION_LIFETIME_MS,
      secrets: [cookie, ...(cookie.startsWith('"') ? [cookie.slice(1, -1)] : []), sessionId],
      data: { apiVersion },
    };
  }

  /** A 401 (REST), or SOAP's HTTP 500 carrying a NotAuthenticated fault. */
  refused(answer: SessionAnswer): boolean {
    if (answer.status === 401) return true;
    return answer.status === 500 && isNotAuthenticatedFault(answer.chunks);
  }

  async #serviceContent(exchange: LoginExchange): Promise<{ sessionManager: string; apiVersion: string }> {
    const body = soapEnvelope(
      '<RetrieveServiceContent xmlns="urn:vim25"><_this type="ServiceInstance">ServiceInstance</_this></RetrieveServiceContent>',
    );
    const answer = await exchange(this.#soapRequest(body, BOOTSTRAP_VERSION));
    const what = `RetrieveServiceContent answered ${answer.status}`;
    if (answer.status !== 200) throw new LoginError(`${what}${faultMessage(answer)}`, answer.status);
    const text = answer.body.toString('utf8');
    const sessionManager = xmlText(/<sessionManager\b[^>]*>([^<]*)<\/sessionManager>/.exec(text)?.[1]);
    if (sessionManager === undefined || sessionManager === '') {
      throw new LoginError(`${what} without a sessionManager (is ${this.#login.server} a vCenter or ESXi?)`, 200);
    }
    const apiVersion = xmlText(/<apiVersion>([0-9][0-9.]{0,30})<\/apiVersion>/.exec(text)?.[1]) ?? BOOTSTRAP_VERSION;
    return { sessionManager, apiVersion };
  }

  async #restLogin(exchange: LoginExchange): Promise<string> {
    const answer = await exchange({
      method: 'POST',
      url: new URL(`https://${this.#login.server}/rest/com/vmware/cis/session`),
      headers: { authorization: `Basic ${this.#basic}`, accept: 'application/json' },
    });
    const what = `REST session login answered ${answer.status}`;
    if (answer.status !== 200) throw new LoginError(what, answer.status);
    let value: unknown;
    try {
      value = (JSON.parse(answer.body.toString('utf8')) as { value?: unknown } | null)?.value;
    } catch {
      throw new LoginError(`${what} with a body that is not JSON`, answer.status);
    }
    if (typeof value !== 'string' || !SESSION_VALUE.test(value)) {
      throw new LoginError(`${what} without a usable session id ({"value": "<id>"})`, answer.status);
    }
    return value;
  }

  #soapRequest(body: string, version: string): Parameters<LoginExchange>[0] {
    return {
      method: 'POST',
      url: new URL(`https://${this.#login.server}/sdk`),
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `urn:vim25/${version}` },
      body: new TextEncoder().encode(body),
    };
  }
}

/** A vsphere entry of the credentials file with its files read (`at` names it in messages). */
export async function vsphereLoginEntry(credential: Credential, entry: VsphereEntry, at: string): Promise<LoginEntry> {
  const login = await readVsphereLogin(entry, at);
  return {
    name: credential.name,
    flow: new VsphereFlow(login),
    // Everything the login depends on: a change to any of it (a rotated password) replaces the session.
    key: JSON.stringify(login),
    ...(login.ca !== undefined ? { ca: login.ca } : {}),
    insecure: credential.insecure,
    hostsFromCatalog: false,
  };
}

/** Text as XML character data or an attribute value. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function xmlText(text: string | undefined): string | undefined {
  return text
    ?.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => XML_ENTITIES[name] ?? '')
    .replace(/&#(\d{1,7});/g, (_, code: string) => String.fromCodePoint(Number(code)));
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };

function soapEnvelope(body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">' +
    `<soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`
  );
}

/** The `vmware_soap_session` value of a Set-Cookie header (repeated ones joined by `, `), quotes kept as sent. */
export function soapCookie(header: string | undefined): string | undefined {
  const value = new RegExp(`(?:^|[,;]\\s*)${SOAP_COOKIE}=("[^"]*"|[^;,\\s]*)`).exec(header ?? '')?.[1];
  const bare = value?.startsWith('"') === true ? value.slice(1, -1) : value;
  return bare !== undefined && SESSION_VALUE.test(bare) ? value : undefined;
}

/** Whether a SOAP answer is a fault whose detail is NotAuthenticated (the session is unknown or has ended). */
export function isNotAuthenticatedFault(chunks: readonly Buffer[]): boolean {
  const head = Buffer.concat(chunks as Buffer[])
    .subarray(0, FAULT_SCAN_BYTES)
    .toString('latin1');
  return /<(?:[\w.-]+:)?Fault\b[\s\S]*?(?:<(?:[\w.-]+:)?NotAuthenticatedFault\b|xsi:type="(?:[\w.-]+:)?NotAuthenticated")/.test(
    head,
  );
}

// A SOAP fault's faultstring and its detail's type: `(InvalidLogin: Login failure)`.
function faultMessage(answer: LoginResponse): string {
  const text = answer.body.subarray(0, FAULT_SCAN_BYTES).toString('utf8');
  const reason = xmlText(/<faultstring>([^<]*)<\/faultstring>/.exec(text)?.[1])?.trim() ?? '';
  const type = /xsi:type="(?:[\w.-]+:)?(\w+)"/.exec(text)?.[1] ?? '';
  const message = [type, reason].filter((t) => t !== '').join(': ');
  return message === '' ? '' : ` (${message.slice(0, MAX_MESSAGE)})`;
}

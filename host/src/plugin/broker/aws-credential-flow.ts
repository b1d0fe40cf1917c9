// An awsSigV4 entry without key files as a login flow (login-flow.ts): its "login" asks the entry's source (or each
// source of the chain in the SDKs' order) for temporary credentials, and the session is those credentials, which the
// credential store signs with. So the SessionKeeper gives them what it gives every login: one call in flight, renewal
// ahead of expiry (at 3/4 of the lifetime or 5 minutes before `Expiration`, whichever comes first) while the old
// credentials still sign, a backoff after a failure with the failure as every request's error, and the secret key
// and session token of every set it held redacted from answers until that set expires.
import type { Credential } from './credential-file.ts';
import { type AwsCredentialSettings } from './aws-credential-settings.ts';
import {
  type AwsCredentials,
  type AwsSourceName,
  type Env,
  fromContainer,
  fromEnvironment,
  fromInstanceProfile,
  fromWebIdentity,
  SourceNotFound,
} from './aws-credential-sources.ts';
import { type LoginExchange, LoginError, type LoginFlow, type LoginSession, type SessionAnswer } from './login-flow.ts';
import type { LoginEntry, SessionData } from './login-sessions.ts';
import type { AwsAccessKey } from './sigv4-signer.ts';
import { errorMessage } from '../../util/error-message.ts';

/** The order of the AWS SDKs' default chain after explicit keys (which an entry gives as key files). */
export const CHAIN: readonly AwsSourceName[] = ['environment', 'webIdentity', 'container', 'instanceProfile'];

/** What a "login" gives: the key to sign with, which source gave it, and the instance's placement (IMDS). */
export interface AwsSession {
  source: AwsSourceName;
  key: AwsAccessKey;
  placement?: { region: string; zone: string };
}

/** The Extism config keys through which the plugin learns the region and zone (never a secret). */
export const REGION_CONFIG_KEY = 'aws.region';
export const ZONE_CONFIG_KEY = 'aws.zone';

// Credentials that do not expire (the environment's) are asked for again daily: the same variables give the same key.
const NO_EXPIRY_LIFETIME_MS = 24 * 3600_000;

export class AwsCredentialFlow implements LoginFlow<AwsSession> {
  readonly kind = 'aws';
  readonly target: string;
  readonly secrets: readonly string[] = [];
  readonly #settings: AwsCredentialSettings;
  readonly #env: Env;
  readonly #now: () => number;

  /** `now`: the wall clock that `Expiration` is compared with (tests). */
  constructor(settings: AwsCredentialSettings, env: Env = process.env, now: () => number = Date.now) {
    this.#settings = settings;
    this.#env = env;
    this.#now = now;
    this.target =
      settings.source === 'chain'
        ? `AWS credentials (chain: ${CHAIN.join(', ')})`
        : `AWS credentials (${settings.source})`;
  }

  async logIn(exchange: LoginExchange): Promise<LoginSession<AwsSession>> {
    const sources = this.#settings.source === 'chain' ? CHAIN : [this.#settings.source];
    const skipped: string[] = [];
    for (const source of sources) {
      let got: AwsCredentials;
      try {
        got = await this.#ask(source, exchange);
      } catch (err) {
        if (err instanceof SourceNotFound) {
          skipped.push(`${source}: ${err.message}`);
          continue;
        }
        const status = err instanceof LoginError ? err.status : undefined;
        throw new LoginError(`${source}: ${errorMessage(err)}`, status);
      }
      return this.#session(source, got);
    }
    throw new LoginError(
      sources.length === 1
        ? `${skipped[0]} (not set up)`
        : `no source of the chain gave credentials: ${skipped.join('; ')}`,
    );
  }

  pluginConfig(_credential: string, data: AwsSession): Record<string, string> {
    return {
      [REGION_CONFIG_KEY]: this.#settings.region,
      ...(data.placement !== undefined ? { [ZONE_CONFIG_KEY]: data.placement.zone } : {}),
    };
  }

  #ask(source: AwsSourceName, exchange: LoginExchange): Promise<AwsCredentials> {
    switch (source) {
      case 'environment':
        return Promise.resolve(fromEnvironment(this.#env));
      case 'webIdentity':
        return fromWebIdentity(this.#settings, this.#env, exchange);
      case 'container':
        return fromContainer(this.#env, exchange);
      case 'instanceProfile':
        return fromInstanceProfile(this.#settings, this.#env, exchange);
    }
  }

  #session(source: AwsSourceName, got: AwsCredentials): LoginSession<AwsSession> {
    const lifetimeMs = got.expiration === undefined ? NO_EXPIRY_LIFETIME_MS : got.expiration.getTime() - this.#now();
    if (lifetimeMs <= 0) {
      throw new LoginError(
        `${source}: the credentials expired at ${got.expiration?.toISOString()} (is this host's clock right?)`,
      );
    }
    const { key } = got;
    return {
      headers: {},
      lifetimeMs,
      secrets: [
        key.secretAccessKey,
        ...(key.sessionToken !== undefined ? [key.sessionToken] : []),
        ...got.exchangeSecrets,
      ],
      data: { source, key, ...(got.placement !== undefined ? { placement: got.placement } : {}) },
    };
  }
}

/** The credential store's login entry for an awsSigV4 entry without key files. */
export function awsLoginEntry(credential: Credential, settings: AwsCredentialSettings): LoginEntry {
  return {
    name: credential.name,
    flow: new AwsCredentialFlow(settings),
    key: JSON.stringify(settings),
    insecure: credential.insecure,
    hostsFromCatalog: false,
  };
}

/** An AWS key to sign with, the secrets to redact, and for temporary credentials how to get new ones. */
export interface AwsKeyHeld {
  key: AwsAccessKey;
  secrets: readonly string[];
  renew?: () => Promise<AwsKeyHeld | undefined>;
}

export function awsKeyOf(session: SessionData): AwsKeyHeld {
  return {
    key: (session.data as AwsSession).key,
    secrets: session.secrets,
    renew: async () => {
      const renewed = await session.renew();
      return renewed === undefined ? undefined : awsKeyOf(renewed);
    },
  };
}

// AWS's answer to a request signed with temporary credentials past their end: ExpiredToken (Query and XML APIs, 400)
// or ExpiredTokenException (JSON APIs, 400 or 403). Its error code is near the start of the body.
const EXPIRED_TOKEN = /\bExpiredToken(?:Exception)?\b/;
const ERROR_CODE_WINDOW = 2_048;

export function refusesAwsSession(answer: SessionAnswer): boolean {
  if (answer.status !== 400 && answer.status !== 403) return false;
  let head = '';
  for (const chunk of answer.chunks) {
    head += chunk.toString('latin1', 0, Math.min(chunk.length, ERROR_CODE_WINDOW - head.length));
    if (head.length >= ERROR_CODE_WINDOW) break;
  }
  return EXPIRED_TOKEN.test(head);
}

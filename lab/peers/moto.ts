// moto's server (the AWS API emulator, installed by scripts/build-moto.sh) on a free loopback port, with SigV4
// signature verification on: moto's IAM-auth mode (INITIAL_NO_AUTH_ACTION_COUNT) lets exactly the first
// BOOTSTRAP_ACTIONS requests through unchecked, which create the IAM user, its policy and its access key; from then
// on every request must be signed with that key (a wrong signature gets EC2's AuthFailure, 401).
//
//   const moto = await startMoto();
//   const res = await moto.query('ec2', { Action: 'DescribeInstances', Version: '2016-11-15' });
//   moto.accessKey; // { accessKeyId, secretAccessKey } for the CCM's credentials files
//   await moto.stop();
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AwsAccessKey, SigV4Signer, awsUriEncode } from '../../host/src/plugin/index.ts';
import { cacheDir, GiveUp, waitFor } from '../controlplane/index.ts';
import { freePort, ManagedProcess, onProcessExit } from '../process/index.ts';

/** The account moto serves when none is configured. */
export const MOTO_ACCOUNT_ID = '123456789012';

// CreateUser, PutUserPolicy, CreateAccessKey: moto checks signatures from the request after these.
const BOOTSTRAP_ACTIONS = 3;
const IAM_VERSION = '2010-05-08';
const USER_NAME = 'wasm-ccm';

/** Allows everything: tests that check permissions pass their own policy. */
export const ALLOW_ALL_POLICY = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
};

export interface MotoOptions {
  /** The IAM policy of the user whose key signs requests (default: ALLOW_ALL_POLICY). */
  policy?: object;
  /** The region `query` signs for (default us-east-1). */
  region?: string;
  readyTimeoutMs?: number;
  /** Check every request's signature (default true); false: moto takes any key (its IMDS answers one it never issued). */
  verifySignatures?: boolean;
  /** Keep every request moto receives (moto's recorder), for `recorded()`. */
  recordRequests?: boolean;
}

/** A request as moto's recorder kept it (header names as sent). */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface MotoAnswer {
  status: number;
  body: string;
}

/** The moto_server of the cached venv; throws with the command that installs it when missing. */
export function motoServerPath(): string {
  const path = join(cacheDir(), 'venv', 'moto', 'bin', 'moto_server');
  if (!existsSync(path)) {
    throw new Error(`moto is not installed: expected ${path}. Run 'npm run build:moto' (needs Python >= 3.9).`);
  }
  return path;
}

export class Moto {
  /** `http://127.0.0.1:<port>`: every service is served there, told apart by the signature's scope. */
  readonly endpoint: string;
  readonly region: string;
  /** The key moto accepts (the IAM user's); sign with anything else and moto refuses. */
  readonly accessKey: AwsAccessKey;
  readonly logPath: string;
  readonly #process: ManagedProcess;
  readonly #dir: string;
  readonly #removeExitHook: () => void;

  private constructor(init: {
    endpoint: string;
    region: string;
    accessKey: AwsAccessKey;
    process: ManagedProcess;
    dir: string;
    removeExitHook: () => void;
  }) {
    this.endpoint = init.endpoint;
    this.region = init.region;
    this.accessKey = init.accessKey;
    this.#process = init.process;
    this.#dir = init.dir;
    this.logPath = join(init.dir, 'moto.log');
    this.#removeExitHook = init.removeExitHook;
  }

  static async start(options: MotoOptions = {}): Promise<Moto> {
    const server = motoServerPath();
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-moto-'));
    const removeExitHook = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const env: Record<string, string | undefined> = { ...globalThis.process.env };
    if (options.verifySignatures ?? true) env.INITIAL_NO_AUTH_ACTION_COUNT = String(BOOTSTRAP_ACTIONS);
    if (options.recordRequests === true) {
      env.MOTO_ENABLE_RECORDING = 'true';
      env.MOTO_RECORDER_FILEPATH = join(dir, 'recording.jsonl');
    }
    const process = new ManagedProcess('moto', server, ['-H', '127.0.0.1', '-p', String(port)], {
      logPath: join(dir, 'moto.log'),
      env,
    });
    try {
      await waitFor(
        'moto to serve',
        async () => {
          if (!process.running) throw new GiveUp('moto_server exited');
          // The dashboard API is not an AWS action: it does not use up the unchecked requests.
          return (await fetch(`${endpoint}/moto-api/data.json`)).ok;
        },
        options.readyTimeoutMs ?? 30_000,
        () => `moto log tail:\n${process.tail()}`,
      );
      const accessKey = await createAccessKey(endpoint, options.policy ?? ALLOW_ALL_POLICY);
      return new Moto({
        endpoint,
        region: options.region ?? 'us-east-1',
        accessKey,
        process,
        dir,
        removeExitHook,
      });
    } catch (err) {
      await process.stop();
      rmSync(dir, { recursive: true, force: true });
      removeExitHook();
      throw err;
    }
  }

  /** A Query-protocol call (form-encoded POST) signed with `key` (default: moto's accepted key). */
  query(service: string, params: Record<string, string>, key: AwsAccessKey = this.accessKey): Promise<MotoAnswer> {
    return signedQuery(this.endpoint, { region: this.region, service }, params, key);
  }

  /** The call through a pass-through in front of moto at `endpoint` (signed for its host; moto checks the Host header). */
  queryVia(endpoint: string, service: string, params: Record<string, string>): Promise<MotoAnswer> {
    return signedQuery(endpoint, { region: this.region, service }, params, this.accessKey);
  }

  /** The same call with no Authorization at all. */
  async unsignedQuery(params: Record<string, string>): Promise<MotoAnswer> {
    const res = await fetch(`${this.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: formBody(params),
    });
    return { status: res.status, body: await res.text() };
  }

  /**
   * Lets the next `count` actions through unchecked, then checks every request again. For calls AWS takes unsigned
   * that moto checks anyway: STS AssumeRoleWithWebIdentity ("does not require the use of AWS security credentials",
   * https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html) answers 500 from moto
   * with signature checks on and no Authorization.
   */
  async allowUnsigned(count: number): Promise<void> {
    const res = await fetch(`${this.endpoint}/moto-api/reset-auth`, { method: 'POST', body: String(count) });
    if (!res.ok) throw new Error(`moto reset-auth answered ${res.status}: ${await res.text()}`);
  }

  /** The requests moto received so far (MotoOptions.recordRequests), oldest first; bodies decoded as UTF-8. */
  recorded(): RecordedRequest[] {
    const file = join(this.#dir, 'recording.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const entry = JSON.parse(line) as RecordedRequest & { body: string | null; body_encoded: boolean };
        const body = entry.body ?? '';
        return {
          method: entry.method,
          url: entry.url,
          headers: entry.headers,
          body: entry.body_encoded ? Buffer.from(body, 'base64').toString('utf8') : body,
        };
      });
  }

  /** How many requests moto recorded so far (MotoOptions.recordRequests), without decoding them: cheap to poll. */
  recordedCount(): number {
    const file = join(this.#dir, 'recording.jsonl');
    if (!existsSync(file)) return 0;
    const bytes = readFileSync(file);
    let lines = 0;
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
    return lines;
  }

  get running(): boolean {
    return this.#process.running;
  }

  /** Stops moto and removes its directory (its log with it). Safe to call twice. */
  async stop(): Promise<void> {
    await this.#process.stop();
    rmSync(this.#dir, { recursive: true, force: true });
    this.#removeExitHook();
  }
}

export function startMoto(options?: MotoOptions): Promise<Moto> {
  return Moto.start(options);
}

const FORM = 'application/x-www-form-urlencoded; charset=utf-8';

function formBody(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([k, v]) => `${awsUriEncode(k)}=${awsUriEncode(v)}`)
    .join('&');
}

async function signedQuery(
  endpoint: string,
  scope: { region: string; service: string },
  params: Record<string, string>,
  key: AwsAccessKey,
): Promise<MotoAnswer> {
  const url = new URL(`${endpoint}/`);
  const body = new TextEncoder().encode(formBody(params));
  const headers: Record<string, string> = { 'content-type': FORM };
  const signed = await new SigV4Signer(key, scope).sign({ method: 'POST', url, headers, body });
  const res = await fetch(url, { method: 'POST', headers: { ...headers, ...signed.headers }, body });
  return { status: res.status, body: await res.text() };
}

// The IAM user whose key the tests use. These requests fall within moto's unchecked allowance, so the key that
// signs them is never checked (moto routes a request by its signature's service, so they are signed all the same).
async function createAccessKey(endpoint: string, policy: object): Promise<AwsAccessKey> {
  const bootstrap: AwsAccessKey = { accessKeyId: 'AKIDBOOTSTRAP', secretAccessKey: 'unchecked' };
  const iam = { region: 'us-east-1', service: 'iam' };
  const steps: Array<Record<string, string>> = [
    { Action: 'CreateUser', UserName: USER_NAME },
    { Action: 'PutUserPolicy', UserName: USER_NAME, PolicyName: 'tests', PolicyDocument: JSON.stringify(policy) },
    { Action: 'CreateAccessKey', UserName: USER_NAME },
  ];
  let last: MotoAnswer = { status: 0, body: '' };
  for (const step of steps) {
    last = await signedQuery(endpoint, iam, { ...step, Version: IAM_VERSION }, bootstrap);
    if (last.status !== 200) throw new Error(`moto IAM ${step.Action} answered ${last.status}: ${last.body}`);
  }
  const accessKeyId = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(last.body)?.[1];
  const secretAccessKey = /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(last.body)?.[1];
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new Error(`moto IAM CreateAccessKey answered no key: ${last.body}`);
  }
  return { accessKeyId, secretAccessKey };
}

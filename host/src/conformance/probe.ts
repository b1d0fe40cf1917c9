// Calls a loaded plugin for the conformance kit and keeps the raw answer. The runtime's typed call() folds an answer
// that violates the ABI into an Internal error; the kit must tell "the plugin said Internal" from "the plugin broke
// the ABI", and name what it sent instead (e.g. ImplementedElsewhere where it is forbidden), so it runs the export
// itself and checks the envelope with the same generated validator the runtime uses.
import { type ProviderError, isProviderError, InternalError } from '../cloudprovider/index.ts';
import {
  METHODS,
  type MethodName,
  type Requests,
  type Responses,
  validateEnvelope,
  validateRequest,
} from '../abi/index.ts';
import { errorFromPlugin, type LoadedPlugin } from '../plugin/index.ts';
import { errorMessage } from '../util/error-message.ts';

export type Outcome<M extends MethodName> =
  | { kind: 'ok'; value: Responses[M] }
  | { kind: 'error'; error: ProviderError }
  | { kind: 'violation'; problem: string; rawCode: string | undefined };

export interface CallRecord {
  method: MethodName;
  kind: 'ok' | 'error' | 'violation';
  code?: string;
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class Probe {
  readonly calls: CallRecord[] = [];
  /** "<method>: <problem>" for every answer that broke the ABI. */
  readonly violations: string[] = [];
  /** "<method>: <code>" for every error without a message. */
  readonly blankErrors: string[] = [];
  readonly #plugin: LoadedPlugin;

  constructor(plugin: LoadedPlugin) {
    this.#plugin = plugin;
  }

  async call<M extends MethodName>(method: M, request: Requests[M]): Promise<Outcome<M>> {
    const sent = validateRequest(method, request);
    // The kit's own requests must be valid, or a plugin would be blamed for the kit's mistake.
    if (!sent.ok) throw new Error(`conformance kit bug: invalid ${method} request: ${sent.error}`);
    let output: Uint8Array;
    try {
      output = await this.#plugin.callExport(
        METHODS[method].exportName,
        encoder.encode(JSON.stringify(this.#plugin.requestFor(method, request))),
        this.#plugin.timeoutFor(method),
      );
    } catch (err) {
      // No answer at all (trap, deadline, missing export): the runtime's error says which.
      const error = isProviderError(err) ? err : new InternalError(errorMessage(err));
      return this.#record(method, { kind: 'error', error });
    }
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(output));
    } catch (err) {
      return this.#violation(method, `output is not UTF-8 JSON (${errorMessage(err)})`, undefined);
    }
    const checked = validateEnvelope(method, value);
    if (!checked.ok) return this.#violation(method, checked.error, rawCode(value));
    const envelope = checked.value;
    if ('error' in envelope) {
      if (envelope.error.message.trim() === '') this.blankErrors.push(`${method}: ${envelope.error.code}`);
      const context = { provider: this.#plugin.providerName, method };
      return this.#record(method, { kind: 'error', error: errorFromPlugin(envelope.error, context) });
    }
    return this.#record(method, { kind: 'ok', value: envelope.ok });
  }

  #violation<M extends MethodName>(method: M, problem: string, code: string | undefined): Outcome<M> {
    this.violations.push(`${method}: ${problem}`);
    return this.#record(method, { kind: 'violation', problem, rawCode: code });
  }

  #record<M extends MethodName>(method: M, outcome: Outcome<M>): Outcome<M> {
    const code =
      outcome.kind === 'error' ? outcome.error.code : outcome.kind === 'violation' ? outcome.rawCode : undefined;
    this.calls.push({ method, kind: outcome.kind, ...(code === undefined ? {} : { code }) });
    return outcome;
  }
}

function rawCode(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('error' in value)) return undefined;
  const error = (value as { error: unknown }).error;
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** How an outcome reads in a failure reason: `ok`, `Internal: <message>`, or `ABI violation: <problem>`. */
export function describeOutcome(outcome: Outcome<MethodName>): string {
  if (outcome.kind === 'ok') {
    const json = JSON.stringify(outcome.value);
    return `ok ${json.length > 160 ? `${json.slice(0, 159)}…` : json}`;
  }
  if (outcome.kind === 'error') return `${outcome.error.code}: ${outcome.error.message}`;
  return `an answer that breaks the ABI${outcome.rawCode ? ` (code ${outcome.rawCode})` : ''}: ${outcome.problem}`;
}

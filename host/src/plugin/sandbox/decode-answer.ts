// Turns a plugin's output bytes into the method's response, or into the named provider error it stands for. Every
// answer is checked against the ABI before a controller sees it: bytes too deep or too large to parse (answer-scan.ts),
// not UTF-8, not JSON, or not the method's envelope are an Internal error naming the plugin, the method and what was
// wrong. The plugin's worker reads each answer the same way first and hands on its canonical form (canonical-answer.ts),
// so what the main thread parses is the ABI's fields in the definition's order, never a shape the plugin chose.
import {
  ImplementedElsewhereError,
  InstanceNotFoundError,
  InternalError,
  InvalidError,
  NotImplementedError,
  type ProviderError,
  type ProviderErrorContext,
  RetryError,
} from '../../cloudprovider/index.ts';
import {
  type Envelope,
  METHODS,
  type MethodName,
  type NodeError,
  type PluginError,
  type Responses,
  validateEnvelope,
} from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { scanAnswer } from './answer-scan.ts';
import { cutPluginMessage } from './plugin-message.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ReadEnvelope<M extends MethodName> = { ok: true; envelope: Envelope<M> } | { ok: false; problem: string };

/** The envelope in a plugin's output, or what is wrong with the output (the message of an Internal error). */
export function readEnvelope<M extends MethodName>(method: M, output: Uint8Array): ReadEnvelope<M> {
  const refused = scanAnswer(output);
  if (refused !== undefined) return { ok: false, problem: refused };
  let text: string;
  try {
    text = utf8.decode(output);
  } catch {
    return { ok: false, problem: `the plugin's output is not UTF-8 (${output.byteLength} bytes)` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `the plugin's output is not JSON (${errorMessage(err)}): ${snippet(text)}` };
  }
  const checked = validateEnvelope(method, value);
  if (!checked.ok) return { ok: false, problem: `the plugin's answer does not match the ABI: ${checked.error}` };
  return { ok: true, envelope: checked.value };
}

export function decodeAnswer<M extends MethodName>(
  method: M,
  output: Uint8Array,
  context: ProviderErrorContext,
): Responses[M] {
  const read = readEnvelope(method, output);
  if (!read.ok) throw new InternalError(read.problem, context);
  const envelope = read.envelope;
  if ('error' in envelope) throw errorFromPlugin(envelope.error, context);
  if (METHODS[method].batchOf.length > 0) cutNodeErrors(envelope.ok as { results?: Outcome[] });
  return envelope.ok;
}

// A batched call's per-node errors become provider errors too, so their messages are cut as an envelope's is.
// A combined batch's outcome holds one outcome per method it combines (ABI 1.6).
type Outcome = { error: NodeError } | Record<string, { error: NodeError }>;

function cutNodeErrors(response: { results?: Outcome[] }): void {
  for (const outcome of response.results ?? []) {
    const parts = 'error' in outcome ? [outcome as { error: NodeError }] : Object.values(outcome);
    for (const part of parts) part.error.message = cutPluginMessage(part.error.message);
  }
}

/**
 * The named error for an error envelope (already validated: Retry has its delay, ImplementedElsewhere is allowed),
 * its message cut to MAX_PLUGIN_MESSAGE_BYTES.
 */
export function errorFromPlugin(error: PluginError, context: ProviderErrorContext): ProviderError {
  const message = cutPluginMessage(error.message);
  switch (error.code) {
    case 'InstanceNotFound':
      return new InstanceNotFoundError(message, context);
    case 'NotImplemented':
      return new NotImplementedError(message, context);
    case 'ImplementedElsewhere':
      return new ImplementedElsewhereError(message, context);
    case 'Retry':
      return new RetryError(message, error.retryAfterSeconds ?? 1, context);
    case 'Invalid':
      return new InvalidError(message, context);
    case 'Internal':
      return new InternalError(message, context);
  }
}

function snippet(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

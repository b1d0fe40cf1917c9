// Turns a plugin's output bytes into the method's response, or into the named provider error it stands for. Every
// answer is checked against the ABI before a controller sees it: bytes that are not UTF-8, not JSON, or not the
// method's envelope are an Internal error naming the plugin, the method and what was wrong.
import {
  ImplementedElsewhereError,
  InstanceNotFoundError,
  InternalError,
  InvalidError,
  NotImplementedError,
  type ProviderError,
  type ProviderErrorContext,
  RetryError,
} from '../../cloudprovider/errors.ts';
import { type MethodName, type PluginError, type Responses, validateEnvelope } from '../../abi/index.ts';
import { cutPluginMessage } from './plugin-message.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeAnswer<M extends MethodName>(
  method: M,
  output: Uint8Array,
  context: ProviderErrorContext,
): Responses[M] {
  let text: string;
  try {
    text = utf8.decode(output);
  } catch {
    throw new InternalError(`the plugin's output is not UTF-8 (${output.byteLength} bytes)`, context);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InternalError(`the plugin's output is not JSON (${(err as Error).message}): ${snippet(text)}`, context);
  }
  const checked = validateEnvelope(method, value);
  if (!checked.ok) throw new InternalError(`the plugin's answer does not match the ABI: ${checked.error}`, context);
  const envelope = checked.value;
  if ('error' in envelope) throw errorFromPlugin(envelope.error, context);
  return envelope.ok;
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

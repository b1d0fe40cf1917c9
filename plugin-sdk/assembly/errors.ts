// Errors a provider answers instead of a response (plugin-sdk/ABI.md, "Error codes"). AssemblyScript has no exceptions:
// a provider method returns a PluginError, or null for success.
import { ErrorCode, NodeError } from "./abi/types.generated";
import { JsonWriter } from "./json/writer";

export class PluginError {
  code: string;
  message: string;
  /** Only for Retry: seconds to wait, > 0. */
  retryAfterSeconds: f64;

  constructor(code: string, message: string, retryAfterSeconds: f64 = 0) {
    this.code = code;
    this.message = message;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  encode(w: JsonWriter): void {
    w.beginObject();
    w.key("code");
    w.string(this.code);
    w.key("message");
    w.string(this.message);
    if (this.code == ErrorCode.Retry) {
      w.key("retryAfterSeconds");
      w.f64(this.retryAfterSeconds);
    }
    w.endObject();
  }

  toString(): string {
    return this.code + ": " + this.message;
  }
}

/** The instance behind a node does not exist (the node controller may delete the node). */
export function instanceNotFound(message: string = ""): PluginError {
  return new PluginError(ErrorCode.InstanceNotFound, message);
}

/** This provider does not do that. What every method not overridden answers. */
export function notImplemented(what: string = ""): PluginError {
  return new PluginError(ErrorCode.NotImplemented, what.length > 0 ? what + " is not implemented" : "");
}

/** Another component handles load balancers; only ensureLoadBalancer and updateLoadBalancer may answer this. */
export function implementedElsewhere(message: string = ""): PluginError {
  return new PluginError(ErrorCode.ImplementedElsewhere, message);
}

/**
 * Try again after `seconds` (the service controller honours the delay). The host requires a delay > 0, so anything
 * smaller (or NaN) is sent as 1 second.
 */
export function retryAfter(seconds: f64, message: string = ""): PluginError {
  return new PluginError(ErrorCode.Retry, message, seconds > 0 && isFinite(seconds) ? seconds : 1);
}

/** The request is wrong (for example a bad Service annotation); say what in the message. */
export function invalid(message: string): PluginError {
  return new PluginError(ErrorCode.Invalid, message);
}

/** Anything else; the host reports it and retries with backoff. */
export function internal(message: string): PluginError {
  return new PluginError(ErrorCode.Internal, message);
}

/** `err` as one node's error in the outcome of a batched method (ABI 1.5). */
export function nodeError(err: PluginError): NodeError {
  const e = new NodeError();
  e.code = err.code;
  e.message = err.message;
  if (err.code == ErrorCode.Retry) e.retryAfterSeconds = err.retryAfterSeconds;
  return e;
}

// A request the broker could not make; the plugin gets it as `{error: {code, message}}`.
import type { HttpError } from '../../abi/index.ts';

export class BrokerError extends Error {
  readonly code: HttpError['code'];
  constructor(code: HttpError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

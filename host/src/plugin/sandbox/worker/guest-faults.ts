// Errors the kernel and host functions raise to stop a guest, and the record of the first one in a call.
//
// A guest with Wasm exception handling can catch what an imported function throws (`catch_all`) and run on: a
// limit, a bad pointer or a host failure would then be a mere suggestion. So every import the guest can call runs
// under GuestFaults.guard, which keeps the first error of the call; whatever the export does afterwards, the call
// fails with that error and the instance is retired (the runner asks `take()` once the export is over).
//
// The guard marks the import as running before calling it and clears the mark only when it returns: an error the
// guard cannot even record (a stack overflow in its own catch clause) still leaves the mark, which counts as a fault.

import { errorMessage } from '../../../util/error-message.ts';

/** Thrown from a kernel or host function to stop the guest: the call fails with a limit error. */
export class GuestLimitError extends Error {
  override name = 'GuestLimitError';
  readonly code = 'GuestLimit';
}

/** Thrown when the guest passes an address that names no block, or a range outside its memory. */
export class GuestAddressError extends Error {
  override name = 'GuestAddressError';
  readonly code = 'GuestAddress';
}

/** Thrown when the guest passes a value no import accepts (a negative size, say). */
export class GuestArgumentError extends Error {
  override name = 'GuestArgumentError';
  readonly code = 'GuestArgument';
}

export interface GuestFault {
  /** The import that raised it. */
  importName: string;
  /** null: the import did not return but its error could not be recorded (the stack was exhausted, most likely). */
  error: Error | null;
}

export class GuestFaults {
  #first: GuestFault | null = null;
  #running: string | null = null;

  /** Forgets the previous call's fault. */
  reset(): void {
    this.#first = null;
    this.#running = null;
  }

  /** The call's first fault, if an import raised one (caught by the guest or not). */
  take(): GuestFault | null {
    if (this.#first !== null) return this.#first;
    if (this.#running !== null) return { importName: this.#running, error: null };
    return null;
  }

  /**
   * `fn`, recording the first error it throws before passing it on to the guest. A function that answers with a
   * promise (a suspending import, guest-host-functions.ts) counts as running until the promise settles.
   */
  guard<A extends unknown[], R>(importName: string, fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      this.#running = importName;
      let result: R;
      try {
        result = fn(...args);
      } catch (err) {
        this.#record(importName, err);
        throw err;
      }
      if (result instanceof Promise) {
        return result.then(
          (value: unknown) => {
            this.#running = null;
            return value;
          },
          (err: unknown) => {
            this.#record(importName, err);
            throw err;
          },
        ) as R;
      }
      this.#running = null;
      return result;
    };
  }

  #record(importName: string, err: unknown): void {
    this.#first ??= { importName, error: err instanceof Error ? err : new Error(errorMessage(err)) };
  }

  /** Every function of `functions` guarded under its own name. */
  guardAll<F extends (...args: never[]) => unknown>(functions: Record<string, F>): Record<string, F> {
    const guarded: Record<string, F> = {};
    for (const [name, fn] of Object.entries(functions)) {
      guarded[name] = this.guard(name, fn as unknown as (...args: unknown[]) => unknown) as unknown as F;
    }
    return guarded;
  }
}

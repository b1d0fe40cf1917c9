// The project compiles against lib es2024 without DOM typings, which is where TypeScript declares the WebAssembly
// JS API. This is the subset the plugin runtime uses, as Node 24 implements it.
declare namespace WebAssembly {
  type ImportExportKind = 'function' | 'global' | 'memory' | 'table' | 'tag';
  interface ModuleExportDescriptor {
    kind: ImportExportKind;
    name: string;
  }
  interface ModuleImportDescriptor {
    kind: ImportExportKind;
    module: string;
    name: string;
  }
  type ExportValue = unknown;
  type Exports = Record<string, ExportValue>;
  type ImportValue = unknown;
  type Bytes = ArrayBufferView | ArrayBuffer;
  type Imports = Record<string, Record<string, ImportValue>>;

  class Module {
    constructor(bytes: Bytes);
    static exports(module: Module): ModuleExportDescriptor[];
    static imports(module: Module): ModuleImportDescriptor[];
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  class Table {
    readonly length: number;
    grow(delta: number): number;
  }
  class CompileError extends Error {}
  class LinkError extends Error {}
  class RuntimeError extends Error {}

  /** JSPI: an import that may return a promise; the calling Wasm stack is suspended until it settles. */
  class Suspending {
    constructor(fn: (...args: never[]) => Promise<unknown>);
  }
  /** JSPI: an export wrapped to run on a stack of its own, resolving when it returns (across suspensions). */
  function promising(fn: (...args: never[]) => unknown): (...args: unknown[]) => Promise<unknown>;

  function compile(bytes: Bytes): Promise<Module>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
  function validate(bytes: Bytes): boolean;
}

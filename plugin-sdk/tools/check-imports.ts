// `wasm-ccm-check-imports build/my-provider.wasm ...`: the import check `npm run build:plugins` does, for a module
// built with plain `asc --config asconfig.json` in a provider's own project. Exit 0 when every module imports only
// what the host provides, 1 when one does not (each forbidden import is named), 2 for a file that is not Wasm. The
// package's bin (bin/wasm-ccm-check-imports.cjs, written by `npm run pack`) checks the Node.js version, then calls
// checkImportsMain.
import { readFileSync } from 'node:fs';
import { forbiddenImports, listImports } from './imports.ts';

/** Checks each file; resolves to the exit status. */
export function checkImportsMain(files: readonly string[], write: (line: string) => void): number {
  if (files.length === 0 || files.includes('--help') || files.includes('-h')) {
    write('usage: wasm-ccm-check-imports <module.wasm> ...');
    return files.length === 0 ? 2 : 0;
  }
  let status = 0;
  for (const file of files) {
    let imports;
    try {
      imports = listImports(new Uint8Array(readFileSync(file)));
    } catch (err) {
      write(`${file}: not a readable WebAssembly module: ${(err as Error).message}`);
      status = 2;
      continue;
    }
    const bad = forbiddenImports(imports);
    if (bad.length === 0) {
      write(`${file}: ${imports.length} imports, all provided by the wasm-ccm host`);
      continue;
    }
    write(`${file}: imports the wasm-ccm host does not provide:\n  ${bad.join('\n  ')}`);
    status = Math.max(status, 1);
  }
  return status;
}

// Generates every typed artefact of the ABI, and the method tables of its docs, from plugin-sdk/abi/v1.json
// (see plugin-sdk/ABI.md).
// `npm run gen:abi` writes the files; test/unit/abi/generated.test.ts calls generateAbiFiles() and compares.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { emitAsExports, emitAsProvider, emitAsTypes } from '../plugin-sdk/codegen/emit-as.ts';
import {
  emitCapabilityInterfaces,
  emitPluginCapabilities,
  emitSwapForwarders,
} from '../plugin-sdk/codegen/emit-ts-facades.ts';
import { emitAbiCallTable, emitSdkCapabilityTable } from '../plugin-sdk/codegen/emit-doc-tables.ts';
import { emitTsTypes } from '../plugin-sdk/codegen/emit-ts-types.ts';
import { emitTsValidate } from '../plugin-sdk/codegen/emit-ts-validate.ts';
import { type AbiModel, parseAbi } from '../plugin-sdk/codegen/model.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFINITION = 'plugin-sdk/abi/v1.json';

type Emitter = (model: AbiModel) => string;

// Output path (relative to the repository root) -> emitter.
const OUTPUTS: Record<string, Emitter> = {
  'host/src/abi/types.generated.ts': emitTsTypes,
  'host/src/abi/validate.generated.ts': emitTsValidate,
  'host/src/cloudprovider/capabilities.generated.ts': emitCapabilityInterfaces,
  'host/src/plugin/runtime/capabilities.generated.ts': emitPluginCapabilities,
  'host/src/plugin/swap/forwarders.generated.ts': emitSwapForwarders,
  'plugin-sdk/assembly/abi/types.generated.ts': emitAsTypes,
  'plugin-sdk/assembly/provider.generated.ts': emitAsProvider,
  'plugin-sdk/assembly/exports/exports.generated.ts': emitAsExports,
};

// Doc path -> marked region -> emitter: the region is the text between `<!-- generated:<region> -->` and
// `<!-- /generated -->`; the rest of the doc is written by hand.
const DOC_REGIONS: Record<string, Record<string, Emitter>> = {
  'plugin-sdk/ABI.md': { 'abi-calls': emitAbiCallTable },
  'plugin-sdk/README.md': { 'sdk-capabilities': emitSdkCapabilityTable },
};

export class DocRegionError extends Error {
  readonly code = 'ABI_DOC_REGION';
  constructor(path: string, region: string) {
    super(`${path}: needs exactly one <!-- generated:${region} --> ... <!-- /generated --> region`);
    this.name = 'DocRegionError';
  }
}

export async function fillRegions(
  path: string,
  doc: string,
  regions: Record<string, Emitter>,
  model: AbiModel,
): Promise<string> {
  let out = doc;
  for (const [region, emit] of Object.entries(regions)) {
    const open = `<!-- generated:${region} -->`;
    const parts = out.split(open);
    const close = parts[1]?.indexOf('<!-- /generated -->') ?? -1;
    if (parts.length !== 2 || close < 0) throw new DocRegionError(path, region);
    const table = await prettier.format(emit(model), { parser: 'markdown', proseWrap: 'preserve' });
    out = `${parts[0]}${open}\n${table}${parts[1]!.slice(close)}`;
  }
  return out;
}

// Generated code goes through the project's formatter so it reads like the rest of the tree and the emitters need
// not reproduce the formatter's line breaking (the linters ignore *.generated.ts anyway).
async function format(path: string, source: string): Promise<string> {
  const options = (await prettier.resolveConfig(join(REPO_ROOT, path))) ?? {};
  return prettier.format(source, { ...options, filepath: path });
}

export function loadModel(): AbiModel {
  return parseAbi(JSON.parse(readFileSync(join(REPO_ROOT, DEFINITION), 'utf8')));
}

/** Every generated file, keyed by its path relative to the repository root, exactly as it should be on disk. */
export async function generateAbiFiles(model: AbiModel = loadModel()): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [path, emit] of Object.entries(OUTPUTS)) files.set(path, await format(path, emit(model)));
  for (const [path, regions] of Object.entries(DOC_REGIONS)) {
    files.set(path, await fillRegions(path, readFileSync(join(REPO_ROOT, path), 'utf8'), regions, model));
  }
  return files;
}

if (import.meta.main) {
  for (const [path, content] of await generateAbiFiles()) {
    const abs = join(REPO_ROOT, path);
    let old: string | null = null;
    try {
      old = readFileSync(abs, 'utf8');
    } catch {
      // A file that does not exist yet is simply written.
    }
    if (old === content) continue;
    writeFileSync(abs, content);
    console.log(`wrote ${path}`);
  }
}

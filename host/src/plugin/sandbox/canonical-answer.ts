// The plugin's worker reads each answer of an ABI method before the main thread sees it, and hands on its canonical
// form: the response's ABI fields only, in the definition's order (canonicalEnvelope, generated from the ABI). An
// answer it refuses goes on as it is when small (the conformance kit names what is wrong with the plugin's own
// bytes; the main thread refuses it again, in the same words), else as an Internal error envelope saying why.
//
// Why: what JSON.parse costs depends on the shape of the text, and a plugin chooses it. One new hidden class per
// object whose keys are new or in a new order: 1 MiB of objects each with a key of its own took 280 ms of the main
// thread, 2 MB of objects with 10 keys in random orders 220 ms; a realistic 1 MiB answer (listRoutes) takes 10 ms.
// Parsed here, that time is the plugin's own call (its worker, under its deadline); the main thread parses objects
// of the ABI's shapes, map keys aside (at most MAX_ANSWER_MAP_ENTRIES of them), and at most MAX_ANSWER_VALUES values.
import { AnswerMapError, canonicalEnvelope, METHODS, type MethodName } from '../../abi/index.ts';
import { readEnvelope } from './decode-answer.ts';

const METHOD_BY_EXPORT = new Map<string, MethodName>(
  (Object.keys(METHODS) as MethodName[]).map((method) => [METHODS[method].exportName, method]),
);

const encoder = new TextEncoder();

/**
 * A refused answer up to this size goes on as it is: at the worst cost per byte measured (objects each with a key of
 * its own, 244 ns a byte) it takes the main thread 16 ms to parse.
 */
const PASS_REFUSED_BYTES = 64 * 1024;

const internalError = (problem: string): Uint8Array =>
  encoder.encode(JSON.stringify({ error: { code: 'Internal', message: problem } }));

/** The answer the main thread gets for `output` of export `exportName`; the output itself for a non-ABI export. */
export function canonicalAnswer(exportName: string, output: Uint8Array): Uint8Array {
  const method = METHOD_BY_EXPORT.get(exportName);
  if (method === undefined) return output;
  const read = readEnvelope(method, output);
  if (!read.ok) return output.byteLength <= PASS_REFUSED_BYTES ? output : internalError(read.problem);
  try {
    return encoder.encode(JSON.stringify(canonicalEnvelope(method, read.envelope)));
  } catch (err) {
    if (err instanceof AnswerMapError)
      return internalError(`the plugin's answer does not match the ABI: ${err.message}`);
    throw err;
  }
}

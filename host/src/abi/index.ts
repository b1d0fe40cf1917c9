// The host's view of provider ABI v1 (plugin-sdk/ABI.md). Everything here is generated from plugin-sdk/abi/v1.json by
// `npm run gen:abi`; import from this module rather than from the generated files so they can be split or renamed.
export * from './types.generated.ts';
export {
  AnswerMapError,
  canonicalEnvelope,
  MAX_ANSWER_MAP_ENTRIES,
  type Validation,
  validateEnvelope,
  validateRequest,
  validateResponse,
  validateValue,
} from './validate.generated.ts';
// The hand-written parts of the ABI layer: kept node lists and answers that carry their JSON.
export * from './kept-list.ts';
export * from './cached-json.ts';

// A plugin whose zone methods answer with their own input, byte for byte: a test hands it any answer (hostile ones
// included) as the request, through LoadedPlugin.call and jsonPayload's cached bytes, and the host decodes it as the
// plugin's answer. The input block is set as the output as it is (Extism's input_offset names it), with no copy.
import { withCachedJSON } from '../../../../host/src/abi/index.ts';
import { hostileModule } from '../../../../lab/plugins/index.ts';

const ECHO = '(call $output_set (call $input_offset) (call $input_length)) (i32.const 0)';

export function echoModule(): Uint8Array {
  return hostileModule({
    zones: true,
    imports: `(import "extism:host/env" "input_offset" (func $input_offset (result i64)))
      (import "extism:host/env" "input_length" (func $input_length (result i64)))`,
    body: `(func (export "echo") (result i32) ${ECHO})`,
    zoneBody: ECHO,
  });
}

/** A getZone request whose bytes are `answer`: the echo plugin answers with them. */
export function answering(answer: string): Record<string, never> {
  return withCachedJSON(Object.freeze({}) as Record<string, never>, answer);
}

// Differences between cloud-provider-aws and wasm-ccm + plugins/aws that the AWS parity test accepts, each with its
// reason; plugins/aws/README.md ("Where it differs from cloud-provider-aws") says the same. Paths are the keys of
// parity-run.ts's snapshot (`node/<name>/labels/<key>`, `nlb/<service>/scheme`, ...). None: the security group rules
// are compared rule by rule (with their descriptions), and moto's one NLB gap, the scheme of a CreateLoadBalancer
// without one, is corrected in upstream's requests (support/moto-corrections.ts) rather than allowed.
import type { AllowedDifference } from '../../../support/parity/allow-list.ts';

export const AWS_ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [];

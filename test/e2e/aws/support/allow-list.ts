// Differences between cloud-provider-aws and wasm-ccm + plugins/aws that the AWS parity test accepts, each with its
// reason; plugins/aws/README.md ("Where it differs from cloud-provider-aws") says the same. Paths are the keys of
// parity-run.ts's snapshot (`node/<name>/labels/<key>`, `nlb/<service>/scheme`, ...).
import type { AllowedDifference } from '../../../support/parity/allow-list.ts';

export const AWS_ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    path: /^nlb\/(web|local)\/scheme$/,
    values: (upstream, wasm) => upstream === '""' && wasm === '"internet-facing"',
    reason:
      'a moto gap: upstream leaves Scheme out of CreateLoadBalancer for internet-facing (the AWS default) and moto ' +
      '5.x stores the missing parameter as no scheme, where AWS answers internet-facing; the plugin sends it',
  },
  {
    // Upstream's rules: each NodePort from the clients (0.0.0.0/0) and ICMP 3/4 (path MTU discovery). After
    // deletion no rule may be left: deleted/security-groups is not on this list.
    path: /^security-groups\/[^/]+(\/|$)/,
    reason:
      'the plugin does not touch security groups: upstream opens the NodePorts (and health check ports) in the ' +
      "instances' group for an NLB's clients (and ICMP for path MTU discovery), here that is the cluster's network setup",
  },
];

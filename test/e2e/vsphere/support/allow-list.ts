// Differences between cloud-provider-vsphere and wasm-ccm + plugins/vsphere that the vSphere parity test accepts, each
// with its reason; plugins/vsphere/README.md ("Behaviour, side by side") says the same. Paths are the keys of
// parity-run.ts's snapshot (`initialized/node/<name>/labels/<key>`, `events/node/<name>`, ...).
import type { AllowedDifference } from '../../../support/parity/allow-list.ts';

export const VSPHERE_ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [];

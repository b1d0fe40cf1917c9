//go:build tools

// Package tools pins cloud-provider-aws's aws-cloud-controller-manager so `go build` can resolve it from this module:
// the upstream AWS CCM run beside wasm-ccm's AWS plugin. Test fixture only; never shipped.
package tools

import _ "k8s.io/cloud-provider-aws/cmd/aws-cloud-controller-manager"

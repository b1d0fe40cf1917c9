//go:build tools

// Package tools pins the helm command so `go build` can resolve it from this module.
package tools

import _ "helm.sh/helm/v4/cmd/helm"

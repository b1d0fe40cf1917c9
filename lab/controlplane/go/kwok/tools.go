//go:build tools

// Package tools pins the kwok command so `go build` can resolve it from this module.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"

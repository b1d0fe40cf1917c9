//go:build tools

// Package tools pins the kube-apiserver command so `go build` can resolve it from this module.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"

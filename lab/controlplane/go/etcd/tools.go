//go:build tools

// Package tools pins the etcd command so `go build` can resolve it from this module.
package tools

import _ "go.etcd.io/etcd/server/v3"

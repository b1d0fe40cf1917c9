#!/usr/bin/env bash
# Builds the upstream AWS cloud-controller-manager (k8s.io/cloud-provider-aws's aws-cloud-controller-manager, the
# release for Kubernetes 1.36) from the Go module proxy, for running beside wasm-ccm's AWS plugin against moto. Test
# fixture only, never shipped. Cached outside the work tree keyed by version and the hash of lab/peers/aws-go's go.mod
# and go.sum, so a warm machine never rebuilds. Idempotent; safe to run concurrently (temp name, then rename).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/lab/peers/aws-go"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
version=v1.36.2 # k8s.io/cloud-provider-aws, built against k8s.io/cloud-provider v0.36

die() { echo "build-aws-peer: $*" >&2; exit 1; }

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "the upstream AWS CCM (k8s.io/cloud-provider-aws $version)"
grep -q "k8s.io/cloud-provider-aws $version\$" "$module/go.mod" ||
  die "$module/go.mod does not require k8s.io/cloud-provider-aws $version"
mkdir -p "$bin"

h=$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-10)
out="$bin/aws-ccm-$version-$h"
if [ -x "$out" ]; then
  echo "build-aws-peer: aws-cloud-controller-manager $version cached at $out"
else
  echo "build-aws-peer: building aws-cloud-controller-manager $version (a cold build takes minutes; cached at $out)"
  start=$SECONDS tmp="$out.tmp.$$"
  (cd "$module" && go build -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version" -o "$tmp" \
    k8s.io/cloud-provider-aws/cmd/aws-cloud-controller-manager) ||
    { rm -f "$tmp"; die "building the AWS CCM failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
  mv -f "$tmp" "$out"
  echo "build-aws-peer: built aws-cloud-controller-manager in $((SECONDS - start)) s"
fi
ln -sfn "$(basename "$out")" "$bin/aws-ccm"
echo "build-aws-peer: ready: $bin/aws-ccm"

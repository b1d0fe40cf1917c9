#!/usr/bin/env bash
# Builds helm (for the chart tests: `helm lint`, `helm template`) from the Go module proxy into the same cache as
# the control plane, keyed by helm's version and the hash of scripts/helm/go.mod + go.sum, so a warm machine never
# rebuilds. Idempotent; safe to run concurrently (the binary is written to a temp name and renamed). Progress goes to
# stderr; stdout is the binary's path alone (`helm=$(bash scripts/build-helm.sh)`).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/scripts/helm"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
version=v4.3.1 # keep equal to helm.sh/helm/v4 in scripts/helm/go.mod

die() { echo "build-helm: $*" >&2; exit 1; }

grep -q "helm.sh/helm/v4 $version\$" "$module/go.mod" || die "scripts/helm/go.mod does not require helm.sh/helm/v4 $version"
hash=$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-10)
out="$bin/helm-$version-$hash"
if [ -x "$out" ]; then
  ln -sfn "$(basename "$out")" "$bin/helm"
  echo "build-helm: helm $version cached at $out" >&2
  echo "$out"
  exit 0
fi

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "helm $version"
mkdir -p "$bin"

echo "build-helm: building helm $version (a cold build takes minutes; output cached at $out)" >&2
start=$SECONDS
tmp="$out.tmp.$$"
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$version -X helm.sh/helm/v4/internal/version.gitTreeState=clean"
(cd "$module" && go build -ldflags "$ldflags" -o "$tmp" helm.sh/helm/v4/cmd/helm) ||
  { rm -f "$tmp"; die "building helm failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
mv -f "$tmp" "$out"
ln -sfn "$(basename "$out")" "$bin/helm"
echo "build-helm: built helm $version in $((SECONDS - start)) s" >&2
echo "$out"

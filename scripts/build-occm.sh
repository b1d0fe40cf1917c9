#!/usr/bin/env bash
# Builds the upstream OpenStack cloud-controller-manager (k8s.io/cloud-provider-openstack's
# openstack-cloud-controller-manager, OCCM) from the Go module proxy, for running beside wasm-ccm against the lab
# OpenStack of lab/clouds/openstack. Test fixture only, never shipped. Cached outside the work tree keyed by version
# and the hash of this script, so a warm machine never rebuilds. Idempotent; safe to run concurrently (temp name,
# then rename).
#
# `go install k8s.io/cloud-provider-openstack/cmd/...@v1.36.0` does not work: its go.mod has `replace` lines (and the
# proxy refuses the module's version list). So the build runs in a throwaway module that requires it and carries
# its go.mod's requirements and replacements, with its go.sum: every dependency is then checked against the hashes
# upstream pinned, and the module itself against the two hashes below (the checksum database may be unreachable).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
module=k8s.io/cloud-provider-openstack
version=v1.36.0 # built against k8s.io/cloud-provider v0.36
module_sum="h1:CRv/S82TdP8M12Ox7ln0KK+Q4Xj+qUI39IAFwK25i/w="
gomod_sum="h1:TogBNryi919wxnrJwWjpvyJ17MfKXA4O4wIjYMGp3dI="

die() { echo "build-occm: $*" >&2; exit 1; }

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "the upstream OpenStack CCM ($module $version)"
# A 404 from the first proxy must fail the build, not fall through to cloning the repository with git.
GOPROXY=$(go env GOPROXY | cut -d, -f1)
export GOPROXY
mkdir -p "$bin"

h=$(sha256sum "$0" | cut -c1-10)
out="$bin/occm-$version-$h"
if [ -x "$out" ]; then
  echo "build-occm: openstack-cloud-controller-manager $version cached at $out"
else
  echo "build-occm: building openstack-cloud-controller-manager $version (a cold build takes ~7 min; cached at $out)"
  start=$SECONDS tmp="$out.tmp.$$" work="$bin/.occm-build.$$"
  trap 'rm -rf "$work" "$tmp"' EXIT
  mkdir -p "$work"
  (cd "$work" && printf 'module wasm-ccm/occm-build\n\ngo 1.26.0\n' >go.mod) || die "cannot write $work/go.mod"
  info=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$module@$version") ||
    die "downloading $module $version failed (is the Go module proxy reachable? GOPROXY=$GOPROXY)"
  src=$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$info")
  got_sum=$(sed -n 's/^\t"Sum": "\(.*\)",$/\1/p' <<<"$info")
  got_gomod=$(sed -n 's/^\t"GoModSum": "\(.*\)",$/\1/p' <<<"$info")
  [ "$got_sum" = "$module_sum" ] && [ "$got_gomod" = "$gomod_sum" ] ||
    die "$module $version hashes $got_sum / $got_gomod, expected $module_sum / $gomod_sum"
  { printf 'module wasm-ccm/occm-build\n\ngo 1.26.0\n\nrequire %s %s\n' "$module" "$version"
    sed '1,/^go /d' "$src/go.mod"; } >"$work/go.mod"
  { cat "$src/go.sum"
    printf '%s %s %s\n%s %s/go.mod %s\n' "$module" "$version" "$module_sum" "$module" "$version" "$gomod_sum"; } \
    >"$work/go.sum"
  (cd "$work" && go build -mod=readonly -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version \
    -X $module/pkg/version.Version=$version" -o "$tmp" "$module/cmd/openstack-cloud-controller-manager") ||
    die "building the OpenStack CCM failed (is the Go module proxy reachable? GOPROXY=$GOPROXY)"
  mv -f "$tmp" "$out"
  echo "build-occm: built openstack-cloud-controller-manager in $((SECONDS - start)) s"
fi
ln -sfn "$(basename "$out")" "$bin/occm"
echo "build-occm: ready: $bin/occm"

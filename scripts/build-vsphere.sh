#!/usr/bin/env bash
# Builds the vSphere test fixtures from the Go module proxy: govmomi's vCenter simulator (vcsim) and CLI (govc), which
# lab/clouds/vsphere runs and seeds, and the upstream vSphere cloud-controller-manager (k8s.io/cloud-provider-vsphere's
# vsphere-cloud-controller-manager) for running beside wasm-ccm against vcsim. Test fixtures only, never shipped.
# Cached outside the work tree keyed by version and the hash of this script, so a warm machine never rebuilds.
# Idempotent; safe to run concurrently (temp name, then rename).
#
# govmomi v0.46.3 is the last release whose vcsim and govc are packages of the main module (later ones are nested
# modules the proxy does not serve). The vSphere CCM cannot be `go install`ed: its go.mod has a `replace` line, so it
# is built in a throwaway module that requires it and carries its go.mod's requirements and replacements, with its
# go.sum. Both modules are checked against the hashes below (the checksum database may be unreachable).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
govmomi=github.com/vmware/govmomi
govmomi_version=v0.46.3
govmomi_sum="h1:zBn42Rl0WZBFhGao8Dy0MFRkbE4YNPqOu0OBd+ww6VM="
govmomi_gomod_sum="h1:uoLVU9zlXC4p4GmLVG+ZJmBC0Gn3Q7mytOJvi39OhxA="
ccm=k8s.io/cloud-provider-vsphere
ccm_version=v1.36.0 # built against k8s.io/cloud-provider v0.36
ccm_sum="h1:BzLS2rZW8qh/Yabh9SvWwGpyUiiyraYjrDSHO76sDfY="
ccm_gomod_sum="h1:S0PKOTJcNcyPBojZjwlub7Zpc3tJXQ8AcHWG08yNoQI="

die() { echo "build-vsphere: $*" >&2; exit 1; }

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "vcsim, govc and the upstream vSphere CCM"
# A 404 from the first proxy must fail the build, not fall through to cloning the repository with git.
GOPROXY=$(go env GOPROXY | cut -d, -f1)
export GOPROXY
mkdir -p "$bin"
h=$(sha256sum "$0" | cut -c1-10)
work="$bin/.vsphere-build.$$"
trap 'rm -rf "$work" "$bin"/*.tmp.$$' EXIT

# download MODULE VERSION SUM GOMOD_SUM: fetches the module into the module cache, checks its hashes and prints its
# directory there.
download() {
  local info dir sum gomod empty="$work/download-$1"
  # An empty module of its own: the CCM's build module is written later in $work.
  mkdir -p "$empty" && printf 'module wasm-ccm/vsphere-build\n\ngo 1.26.0\n' >"$empty/go.mod"
  info=$(cd "$empty" && GOFLAGS=-mod=mod go mod download -json "$1@$2") ||
    die "downloading $1 $2 failed (is the Go module proxy reachable? GOPROXY=$GOPROXY)"
  dir=$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$info")
  sum=$(sed -n 's/^\t"Sum": "\(.*\)",$/\1/p' <<<"$info")
  gomod=$(sed -n 's/^\t"GoModSum": "\([^"]*\)",\{0,1\}$/\1/p' <<<"$info")
  [ "$sum" = "$3" ] && [ "$gomod" = "$4" ] || die "$1 $2 hashes $sum / $gomod, expected $3 / $4"
  echo "$dir"
}

build_govmomi_tools() {
  local vcsim="$bin/vcsim-$govmomi_version-$h" govc="$bin/govc-$govmomi_version-$h"
  if [ -x "$vcsim" ] && [ -x "$govc" ]; then
    echo "build-vsphere: vcsim and govc $govmomi_version cached at $vcsim, $govc"
  else
    echo "build-vsphere: building vcsim and govc $govmomi_version (a cold build takes 2-5 min)"
    local start=$SECONDS
    download "$govmomi" "$govmomi_version" "$govmomi_sum" "$govmomi_gomod_sum" >/dev/null
    mkdir -p "$work/gobin"
    GOBIN="$work/gobin" go install -ldflags "-s -w" "$govmomi/vcsim@$govmomi_version" \
      "$govmomi/govc@$govmomi_version" || die "building vcsim and govc failed (GOPROXY=$GOPROXY)"
    mv -f "$work/gobin/vcsim" "$vcsim.tmp.$$" && mv -f "$vcsim.tmp.$$" "$vcsim"
    mv -f "$work/gobin/govc" "$govc.tmp.$$" && mv -f "$govc.tmp.$$" "$govc"
    echo "build-vsphere: built vcsim and govc in $((SECONDS - start)) s"
  fi
  ln -sfn "$(basename "$vcsim")" "$bin/vcsim"
  ln -sfn "$(basename "$govc")" "$bin/govc"
}

build_ccm() {
  local out="$bin/vsphere-ccm-$ccm_version-$h"
  if [ -x "$out" ]; then
    echo "build-vsphere: vsphere-cloud-controller-manager $ccm_version cached at $out"
  else
    echo "build-vsphere: building vsphere-cloud-controller-manager $ccm_version (a cold build takes 5-10 min)"
    local start=$SECONDS src tmp="$out.tmp.$$"
    mkdir -p "$work"
    src=$(download "$ccm" "$ccm_version" "$ccm_sum" "$ccm_gomod_sum")
    { printf 'module wasm-ccm/vsphere-build\n\ngo 1.26.0\n\nrequire %s %s\n' "$ccm" "$ccm_version"
      sed '1,/^go /d' "$src/go.mod"; } >"$work/go.mod"
    { cat "$src/go.sum"
      printf '%s %s %s\n%s %s/go.mod %s\n' "$ccm" "$ccm_version" "$ccm_sum" "$ccm" "$ccm_version" "$ccm_gomod_sum"
    } >"$work/go.sum"
    (cd "$work" && go build -mod=readonly -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$ccm_version" \
      -o "$tmp" "$ccm/cmd/vsphere-cloud-controller-manager") ||
      die "building the vSphere CCM failed (is the Go module proxy reachable? GOPROXY=$GOPROXY)"
    mv -f "$tmp" "$out"
    echo "build-vsphere: built vsphere-cloud-controller-manager in $((SECONDS - start)) s"
  fi
  ln -sfn "$(basename "$out")" "$bin/vsphere-ccm"
}

build_govmomi_tools
build_ccm
echo "build-vsphere: ready: $bin/vcsim, $bin/govc, $bin/vsphere-ccm"

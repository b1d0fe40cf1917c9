#!/usr/bin/env bash
# Builds the real control plane the end-to-end tests run against (kube-apiserver, etcd, kwok) from the Go
# module proxy, into a cache outside the work tree keyed by tool version and go.sum, so a warm machine never
# rebuilds. Idempotent; safe to run concurrently (each binary is written to a temp name and renamed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
modules="$root/lab/controlplane/go"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"

die() { echo "build-controlplane: $*" >&2; exit 1; }

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "kube-apiserver v1.36, etcd and kwok"
mkdir -p "$bin"

# key NAME MODULE_DIR VERSION -> cache file name; changes whenever the module's go.mod or go.sum changes.
key() {
  local h
  h=$(cat "$2/go.mod" "$2/go.sum" | sha256sum | cut -c1-10)
  echo "$1-$3-$h"
}

build() { # build NAME MODULE_DIR VERSION PACKAGE [LDFLAGS]
  local name=$1 dir=$2 version=$3 pkg=$4 ldflags=${5:-}
  local out="$bin/$(key "$name" "$dir" "$version")"
  if [ -x "$out" ]; then
    echo "build-controlplane: $name $version cached at $out"
  else
    echo "build-controlplane: building $name $version (cold builds take minutes; output cached at $out)"
    local start=$SECONDS tmp="$out.tmp.$$"
    (cd "$dir" && go build -ldflags "-s -w $ldflags" -o "$tmp" "$pkg") ||
      { rm -f "$tmp"; die "building $name failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
    mv -f "$tmp" "$out"
    echo "build-controlplane: built $name in $((SECONDS - start)) s"
  fi
  ln -sfn "$(basename "$out")" "$bin/$name"
}

k8s=v1.36.3
etcd=v3.6.16
kwok=v0.8.0

build etcd "$modules/etcd" "$etcd" go.etcd.io/etcd/server/v3
build kwok "$modules/kwok" "$kwok" sigs.k8s.io/kwok/cmd/kwok "-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok"
build kube-apiserver "$modules/kube-apiserver" "$k8s" k8s.io/kubernetes/cmd/kube-apiserver \
  "-X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36 -X k8s.io/component-base/version.gitTreeState=clean"

# kwok reads its node lifecycle stages from files that ship in its module, not in the binary.
stages="$cache/kwok-$kwok-stages"
if [ ! -d "$stages" ]; then
  src=$(cd "$modules/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok) || die "cannot locate the kwok module source"
  rm -rf "$stages.tmp.$$" && mkdir -p "$stages.tmp.$$"
  cp -r "$src/kustomize/stage/node" "$stages.tmp.$$/node"
  chmod -R u+w "$stages.tmp.$$"
  mv "$stages.tmp.$$" "$stages" 2>/dev/null || rm -rf "$stages.tmp.$$"
fi
ln -sfn "$(basename "$stages")" "$cache/kwok-stages"

echo "build-controlplane: ready in $bin (kube-apiserver $k8s, etcd $etcd, kwok $kwok)"

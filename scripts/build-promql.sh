#!/usr/bin/env bash
# Builds promql-check (test/support/promql-go): Prometheus' own PromQL parser behind a JSON filter, which the chart
# tests run over the PrometheusRule's alerts and the dashboard's queries. Test tool only, never shipped. Cached outside
# the work tree keyed by the Prometheus version and the hash of the module's go.mod, go.sum and source, so a warm
# machine never rebuilds, nor needs Go (a cold build takes minutes). Idempotent; safe to run concurrently (written to a temp name and
# renamed). Prints the binary's path on its last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/test/support/promql-go"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
version=v0.316.0 # github.com/prometheus/prometheus (Prometheus 3.16)

die() { echo "build-promql: $*" >&2; exit 1; }

grep -q "github.com/prometheus/prometheus $version\$" "$module/go.mod" || die "$module/go.mod does not require github.com/prometheus/prometheus $version"
mkdir -p "$bin"

h=$(cd "$module" && cat go.mod go.sum main.go | sha256sum | cut -c1-10)
out="$bin/promql-check-$version-$h"
if [ -x "$out" ]; then
  echo "build-promql: promql-check $version cached at $out" >&2
else
  # shellcheck source=lib/go-build.sh
  . "$root/scripts/lib/go-build.sh"
  require_go "promql-check (github.com/prometheus/prometheus $version)"
  echo "build-promql: building promql-check $version (a cold build takes minutes; output cached at $out)" >&2
  start=$SECONDS tmp="$out.tmp.$$"
  (cd "$module" && go build -ldflags "-s -w" -o "$tmp" .) ||
    { rm -f "$tmp"; die "building promql-check failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
  mv -f "$tmp" "$out"
  echo "build-promql: built promql-check in $((SECONDS - start)) s" >&2
fi
echo "$out"

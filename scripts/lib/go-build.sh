# Sourced by the scripts/build-*.sh scripts that build Go tools into the cache: a Go toolchain fit to build them and
# the environment they are built in. The caller defines die().

# require_go WHAT: dies unless Go >= 1.26 is on PATH (WHAT names what needs it), then exports the build environment:
# static binaries, no VCS stamping, no toolchain download, and no checksum database (each module's go.sum pins
# every hash, and the database may be unreachable here).
require_go() {
  command -v go >/dev/null 2>&1 || die "Go is not installed (need Go >= 1.26 on PATH to build $1)"
  local gov
  gov=$(go env GOVERSION) || die "'go env GOVERSION' failed"
  case "$gov" in
    go1.2[6-9]*|go1.[3-9][0-9]*) ;;
    *) die "Go $gov is too old: $1 needs Go >= 1.26" ;;
  esac
  export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -trimpath"
  export GOSUMDB="${GOSUMDB:-off}"
}

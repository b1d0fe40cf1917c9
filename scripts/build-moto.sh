#!/usr/bin/env bash
# Installs moto's server (the AWS API emulator the AWS end-to-end tests run against) into a Python virtual
# environment in the cache outside the work tree, keyed by moto's version and the hash of the pin list
# (lab/peers/moto/requirements.txt) and of the Python it runs on, so a warm machine installs nothing.
# Idempotent; safe to run concurrently: a venv cannot be moved once built (its scripts name their own path), so it
# is built in place under a lock and counts as present only once its completion marker is written.
#   --print-dir   print the venv directory for the current pins and exit (builds nothing)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pins="$root/lab/peers/moto/requirements.txt"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
venvs="$cache/venv"
python="${WASM_CCM_PYTHON:-python3}"

die() { echo "build-moto: $*" >&2; exit 1; }

command -v "$python" >/dev/null 2>&1 || die "$python is not installed (need Python >= 3.9 with the venv module to run moto)"
pyversion=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') || die "'$python' does not run"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
  die "Python $pyversion is too old: moto needs Python >= 3.9"
[ -f "$pins" ] || die "missing pin list $pins"
version=$(sed -n 's/^moto\[server\]==\([0-9][0-9.]*\)$/\1/p' "$pins")
[ -n "$version" ] || die "$pins does not pin moto[server]==<version>"

# The Python version is part of the key: a venv holds compiled packages built for one interpreter.
h=$( { cat "$pins"; echo "python $pyversion"; } | sha256sum | cut -c1-10)
dir="$venvs/moto-$version-$h"
if [ "${1:-}" = "--print-dir" ]; then echo "$dir"; exit 0; fi

mkdir -p "$venvs"
exec 9>"$venvs/.moto.lock"
flock 9
if [ -f "$dir/.complete" ]; then
  echo "build-moto: moto $version cached at $dir"
else
  echo "build-moto: installing moto $version (takes ~30 s; cached at $dir)"
  start=$SECONDS
  rm -rf "$dir"
  "$python" -m venv "$dir" || { rm -rf "$dir"; die "'$python -m venv' failed (on Debian: apt-get install python3-venv)"; }
  "$dir/bin/pip" install --disable-pip-version-check --no-input --quiet -r "$pins" ||
    { rm -rf "$dir"; die "installing moto $version failed (is PyPI reachable? PIP_INDEX_URL=${PIP_INDEX_URL:-default})"; }
  "$dir/bin/python" -c 'import moto.server' || { rm -rf "$dir"; die "moto $version installed but does not import"; }
  touch "$dir/.complete"
  echo "build-moto: installed moto $version in $((SECONDS - start)) s"
fi
ln -sfn "$(basename "$dir")" "$venvs/moto"
echo "build-moto: ready: $venvs/moto/bin/moto_server"

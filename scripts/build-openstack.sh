#!/usr/bin/env bash
# Installs what the lab OpenStack of lab/clouds/openstack runs on: MariaDB, RabbitMQ, Open vSwitch and socat from
# Debian's packages (their system services are never started: the lab runs each as a process of its own, bound to
# 127.0.0.1), and keystone, nova, neutron, octavia, placement and glance from PyPI into a Python venv in the cache
# outside the work tree, keyed by the pin list (lab/clouds/openstack/requirements.txt), this script and the Python it
# runs on, so a warm machine installs nothing. Idempotent; safe to run concurrently: a venv cannot be moved once
# built (its scripts name their own path), so it is built in place under a lock and counts as present only once
# its completion marker is written.
#   --print-dir   print the venv directory for the current pins and exit (installs nothing)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pins="$root/lab/clouds/openstack/requirements.txt"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
venvs="$cache/venv"
python="${WASM_CCM_OPENSTACK_PYTHON:-python3.11}"
# ebtables, iptables and conntrack are not among them: the lab's neutron agent runs with the noop firewall.
debs=(mariadb-server rabbitmq-server openvswitch-switch socat iproute2 openssl)

die() { echo "build-openstack: $*" >&2; exit 1; }

command -v "$python" >/dev/null 2>&1 || die "$python is not installed (the 2026.2 OpenStack services need Python >= 3.11)"
pyversion=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') || die "'$python' does not run"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' ||
  die "Python $pyversion is too old: the 2026.2 OpenStack services need Python >= 3.11"
[ -f "$pins" ] || die "missing pin list $pins"
pin() { sed -n "s/^$1==\([0-9][0-9.]*\)\$/\1/p" "$pins"; }
versions="k$(pin keystone)-n$(pin nova)-q$(pin neutron)-o$(pin octavia)-p$(pin openstack-placement)-g$(pin glance)"
h=$( { cat "$pins" "$0"; echo "python $pyversion"; } | sha256sum | cut -c1-10)
dir="$venvs/openstack-$versions-$h"
if [ "${1:-}" = "--print-dir" ]; then echo "$dir"; exit 0; fi

# Debian's postinst scripts start the packages' services (RabbitMQ's would listen on every interface): a
# policy-rc.d that answers 101 forbids that for the length of the install.
install_debs() {
  local missing=() p
  for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages ${missing[*]}: run this script as root once to install them"
  command -v apt-get >/dev/null 2>&1 || die "missing packages ${missing[*]} and no apt-get to install them"
  echo "build-openstack: installing ${missing[*]} from Debian"
  local policy=/usr/sbin/policy-rc.d ours=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && ours=1
  fi
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null; } || rc=$?
  [ "$ours" -eq 1 ] && rm -f "$policy"
  [ "$rc" -eq 0 ] || die "apt-get install ${missing[*]} failed"
}

install_venv() {
  mkdir -p "$venvs"
  exec 9>"$venvs/.openstack.lock"
  flock 9
  if [ -f "$dir/.complete" ]; then
    echo "build-openstack: OpenStack services cached at $dir"
    return 0
  fi
  echo "build-openstack: installing the OpenStack services $versions (takes ~6 min; cached at $dir)"
  local start=$SECONDS
  rm -rf "$dir"
  "$python" -m venv "$dir" || { rm -rf "$dir"; die "'$python -m venv' failed"; }
  "$dir/bin/pip" install --disable-pip-version-check --no-input --quiet -r "$pins" ||
    { rm -rf "$dir"; die "installing the OpenStack services failed (is PyPI reachable? PIP_INDEX_URL=${PIP_INDEX_URL:-default})"; }
  "$dir/bin/pip" check --disable-pip-version-check >/dev/null ||
    { rm -rf "$dir"; die "the installed OpenStack services conflict: $("$dir/bin/pip" check 2>&1 | head -5)"; }
  "$dir/bin/python" -c 'import keystone, nova, neutron, octavia, placement, glance, gunicorn, pymysql' ||
    { rm -rf "$dir"; die "the OpenStack services installed but do not import"; }
  touch "$dir/.complete"
  echo "build-openstack: installed the OpenStack services in $((SECONDS - start)) s"
}

install_debs
install_venv
ln -sfn "$(basename "$dir")" "$venvs/openstack"
echo "build-openstack: ready: $venvs/openstack"

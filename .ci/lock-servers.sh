# shellcheck shell=bash
# Sourced by .ci/run (as root, on Debian 12): installs the lock servers the provider
# conformance tests start themselves (redis-server, etcd), each on free 127.0.0.1 ports in a
# temporary directory, stopped at the end of each suite. No system service is started.
# FENCELINT_REQUIRE_LOCK_SERVERS=1 makes a missing binary a test failure instead of a skip.

fencelint_lock_servers_install() {
  local missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "lock-servers.sh: installing ${missing[*]}"
    # Keep the packages' own services from starting: the tests start their own servers.
    local guard=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
      chmod +x /usr/sbin/policy-rc.d
      guard=1
    fi
    local status=0
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
    [ -n "$guard" ] && rm -f /usr/sbin/policy-rc.d
    [ "$status" -eq 0 ] || { echo "lock-servers.sh: apt-get install ${missing[*]} failed" >&2; return 1; }
  fi
  echo "lock-servers.sh: $(redis-server --version | cut -d' ' -f1-3), $(etcd --version | head -n 1)"
  export FENCELINT_REQUIRE_LOCK_SERVERS=1
}

fencelint_lock_servers_install

#!/usr/bin/env bash
# The cluster test's load balancer: Debian's HAProxy, installed when missing (CI runs as root).
set -euo pipefail
if ! command -v haproxy >/dev/null && [ ! -x /usr/sbin/haproxy ]; then
  echo "== installing haproxy"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq haproxy >/dev/null
fi

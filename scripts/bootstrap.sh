#!/usr/bin/env bash
# Shared set-up for scripts/demo and scripts/test (sourced by them, or run alone to set up only):
# makes sure the machine has Python >= 3.11 with venv and mosquitto, creates .venv and installs
# the package into it. Idempotent: a second run installs nothing unless pyproject.toml changed.
# With BOOTSTRAP_FUNCTIONS_ONLY=1 it only defines its functions (the tests use that).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else say "need root for: $*"; return 1
    fi
}

# The locks apt and dpkg hold while they work (unattended-upgrades holds them for minutes on a
# freshly booted Pi).
APT_LOCKS=${APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}
APT_LOCK_WAIT_S=${APT_LOCK_WAIT_S:-300}

# dpkg and apt take fcntl(2) locks (not flock), so ask with Python's lockf; 0 = someone holds one.
apt_lock_held() {
    local python lock
    python=$(command -v python3) || return 1
    for lock in $APT_LOCKS; do
        [ -e "$lock" ] || continue
        as_root "$python" -c 'import fcntl, sys
with open(sys.argv[1], "a") as f:
    try:
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit(0)
sys.exit(1)' "$lock" && return 0
    done
    return 1
}

wait_for_apt_lock() {
    local waited=0
    apt_lock_held || return 0
    say "another package manager is at work (often unattended-upgrades after boot): waiting for it, at most ${APT_LOCK_WAIT_S} s"
    while apt_lock_held; do
        if [ "$waited" -ge "$APT_LOCK_WAIT_S" ]; then
            say "the package lock is still held after ${APT_LOCK_WAIT_S} s: let it finish (see: ps aux | grep -E 'apt|dpkg'), then run this again"
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    say "the package lock is free again after ${waited} s"
}

apt_get() {
    wait_for_apt_lock
    # apt waits itself too, should another one slip in between.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@"
}

apt_install() {
    say "installing Debian packages: $*"
    apt_get install -y -q "$@" >/dev/null 2>&1 || {
        apt_get update -q >/dev/null
        apt_get install -y -q "$@" >/dev/null
    }
}

# The distribution's own interpreter first: it is the one a table runs (Raspberry Pi OS's
# python3), so the tests and benchmarks run the program as a table does. Debian builds it with
# profile-guided and link-time optimisation, linked into one binary: the rules engine runs about
# a fifth faster on it, and the suite takes a sixth less CPU, than on a Python built from source
# with the default options and a shared libpython (what version managers such as pyenv make).
pick_python() {
    for candidate in /usr/bin/python3 python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"; return 0
        fi
    done
    say "Python 3.11 or newer is required"; return 1
}

mosquitto_binary() {
    command -v mosquitto 2>/dev/null || ls /usr/sbin/mosquitto 2>/dev/null || true
}

ensure_system_packages() {
    [ -n "$(mosquitto_binary)" ] || apt_install mosquitto
    # The venue broker tests make a CA and table certificates with openssl.
    command -v openssl >/dev/null 2>&1 || apt_install openssl
    # The venue hub tests: a throwaway PostgreSQL cluster, the dashboard in headless Chromium.
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || apt_install postgresql
    command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 ||
        apt_install chromium chromium-driver
    # The deploy tests check the systemd unit with Debian's systemd-analyze.
    command -v systemd-analyze >/dev/null 2>&1 || apt_install systemd
    # The reference MCU firmware (hardware/firmware): the host build and its fuzz run with clang
    # and make, the Cortex-M0+ build with Debian's arm-none-eabi toolchain and newlib.
    command -v make >/dev/null 2>&1 || apt_install make
    command -v cc >/dev/null 2>&1 || apt_install gcc
    command -v clang >/dev/null 2>&1 || apt_install clang
    command -v arm-none-eabi-gcc >/dev/null 2>&1 || apt_install gcc-arm-none-eabi
    [ -d /usr/lib/arm-none-eabi/newlib ] || apt_install libnewlib-arm-none-eabi
    local python; python=$(pick_python)
    if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        apt_install python3-venv
    fi
}

ensure_venv() {
    local python stamp
    python=$(pick_python)
    [ -x .venv/bin/python ] || { say "creating .venv with $python"; "$python" -m venv .venv; }
    stamp=$(sha256sum pyproject.toml | cut -d' ' -f1)
    if [ "$(cat .venv/.installed 2>/dev/null)" != "$stamp" ]; then
        say "installing mahjong-table and its dev tools into .venv"
        # uv installs the same packages as pip in about half the time (what a CI run on a
        # clean clone waits for); pip does it where uv cannot be had. Compiled at install, as
        # pip does: the tests start Python hundreds of times.
        if ! { .venv/bin/python -m pip install -q uv >/dev/null 2>&1 &&
            .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python -e '.[dev]'; }; then
            .venv/bin/python -m pip install -q --upgrade pip >/dev/null
            .venv/bin/python -m pip install -q -e '.[dev]'
        fi
        echo "$stamp" > .venv/.installed
    fi
}

if [ "${BOOTSTRAP_FUNCTIONS_ONLY:-}" != 1 ]; then
    ensure_system_packages
    ensure_venv
    export PATH="$ROOT/.venv/bin:$PATH"
fi

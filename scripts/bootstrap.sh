# Shared set-up for scripts/demo and scripts/test (sourced, not run): makes sure the machine has
# Python >= 3.11 with venv and mosquitto, creates .venv and installs the package into it.
# Idempotent: a second run installs nothing unless pyproject.toml changed.
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

apt_install() {
    say "installing Debian packages: $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
        as_root apt-get update -q >/dev/null
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
    }
}

pick_python() {
    for candidate in python3.13 python3.12 python3.11 python3; do
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
    # The deploy tests check the systemd unit with Debian's systemd-analyze.
    command -v systemd-analyze >/dev/null 2>&1 || apt_install systemd
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
        .venv/bin/python -m pip install -q --upgrade pip >/dev/null
        .venv/bin/python -m pip install -q -e '.[dev]'
        echo "$stamp" > .venv/.installed
    fi
}

ensure_system_packages
ensure_venv
export PATH="$ROOT/.venv/bin:$PATH"

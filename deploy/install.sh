#!/usr/bin/env bash
# Installs mahjong-table on a table's Raspberry Pi (Raspberry Pi OS 64-bit, run as root): a
# virtualenv in /opt/mahjong-table with the right GPIO backend, the systemd unit, the udev rule,
# the example config and a tile set. Re-running upgrades in place and keeps the config; the
# daemon is (re)started only if `mahjong-table config check` passes.
#
#   install.sh [--prefix DIR] [--tileset FILE] [--config FILE] [--gpio auto|rpi-lgpio|rpi-gpio|none]
#              [--service-user USER]
#   install.sh [--prefix DIR] --program-only        (the venue recorder's host: no table daemon)
#   install.sh [--prefix DIR] --uninstall
#   install.sh --print-gpio-backend [--device-model FILE]
#
# --prefix DIR puts everything under DIR and touches nothing outside it (no user, no systemctl,
# no udev, no apt): for trying an install, and for the tests. --uninstall removes what the
# install put there; a config someone edited and results still in the outbox are kept.
# The config is checked as the daemon's user (mahjong; --service-user under a prefix), as the
# unit's ExecStartPre checks it: a key or config only root can read fails here, not at start.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

prefix="" uninstall=0 tileset="" config="" gpio="auto" model_file=/proc/device-tree/model
print_backend=0 program_only=0 service_user=""
die() { echo "install.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=$(realpath -m "${2:?--prefix needs a directory}"); shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        --tileset) tileset=${2:?--tileset needs a file}; shift 2 ;;
        --config) config=${2:?--config needs a file}; shift 2 ;;
        --gpio) gpio=${2:?--gpio needs a backend}; shift 2 ;;
        --device-model) model_file=${2:?}; shift 2 ;;
        --print-gpio-backend) print_backend=1; shift ;;
        --program-only) program_only=1; shift ;;
        --service-user) service_user=${2:?--service-user needs a user}; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

# The GPIO library gpiozero drives: a Pi 5 (Bookworm) has no RPi.GPIO and uses rpi-lgpio,
# which provides the same module; older Pis use RPi.GPIO; elsewhere none (mock pins only).
gpio_backend() {
    [ "$gpio" != auto ] && { echo "$gpio"; return; }
    local model=""
    [ -r "$model_file" ] && model=$(tr -d '\0' < "$model_file")
    case "$model" in
        "Raspberry Pi 5"*|"Raspberry Pi Compute Module 5"*) echo rpi-lgpio ;;
        "Raspberry Pi"*) echo rpi-gpio ;;
        *) echo none ;;
    esac
}
if [ "$print_backend" = 1 ]; then gpio_backend; exit 0; fi
case "$(gpio_backend)" in rpi-lgpio|rpi-gpio|none) ;; *) die "--gpio must be auto, rpi-lgpio, rpi-gpio or none" ;; esac

opt=$prefix/opt/mahjong-table
etc=$prefix/etc/mahjong-table
share=$prefix/usr/share/mahjong-table
state=$prefix/var/lib/mahjong-table
unit=$prefix/etc/systemd/system/mahjong-table.service
udev=$prefix/etc/udev/rules.d/99-mahjong-mcu.rules
system=$([ -z "$prefix" ] && echo 1 || echo 0)   # 1: the real system (root, systemd, udev)
[ "$system" = 1 ] && service_user=${service_user:-mahjong}

if [ "$system" = 1 ] && [ "$(id -u)" -ne 0 ]; then die "run as root (or try it with --prefix DIR)"; fi

example_config() {  # the example names its files under /; under a prefix they point into it
    sed -e "s#/etc/mahjong-table#$etc#g" -e "s#/var/lib/mahjong-table#$state#g" \
        -e "s#/usr/share/mahjong-table#$share#g" "$src/deploy/table.example.toml"
}

remove_empty_parents() {  # the directories the install made, if nothing else is in them
    local dir
    for dir in "$@"; do
        while [ -n "$prefix" ] && [ "$dir" != "$prefix" ] && [ -d "$dir" ] && rmdir "$dir" 2>/dev/null; do
            dir=$(dirname "$dir")
        done
    done
}

if [ "$uninstall" = 1 ]; then
    if [ "$system" = 1 ]; then
        systemctl disable --now mahjong-table 2>/dev/null || true
    fi
    rm -rf "$opt" "$share"
    rm -f "$unit" "$udev"
    if [ -f "$etc/table.toml" ] && example_config | cmp -s "$etc/table.toml" -; then
        rm -f "$etc/table.toml"
    fi
    [ -f "$etc/.installed-tileset" ] && rm -f "$etc/tileset.toml" "$etc/.installed-tileset"
    [ -d "$etc" ] && [ -n "$(ls -A "$etc")" ] && echo "install.sh: kept $etc (edited config or tile sets)"
    [ -d "$state" ] && [ -n "$(ls -A "$state")" ] && echo "install.sh: kept $state (the outbox: results may still be unsent)"
    if [ "$system" = 1 ]; then
        systemctl daemon-reload
        rmdir "$etc" "$state" 2>/dev/null || true
    else
        rmdir "$etc" "$state" 2>/dev/null || true
        remove_empty_parents "$prefix/opt" "$prefix/usr/share" "$prefix/var/lib" \
            "$prefix/etc/systemd/system" "$prefix/etc/udev/rules.d" "$prefix/etc"
    fi
    echo "uninstalled"
    exit 0
fi

if [ "$system" = 1 ]; then
    apt-get install -y -q python3-venv python3-dev >/dev/null
    getent group mahjong >/dev/null || groupadd --system mahjong
    id mahjong >/dev/null 2>&1 || useradd --system --gid mahjong --home /var/lib/mahjong-table --shell /usr/sbin/nologin mahjong
    getent group gpio >/dev/null || groupadd --system gpio
    usermod -aG dialout,gpio mahjong
fi

[ -x "$opt/bin/python" ] || python3 -m venv "$opt"
backend=$(gpio_backend)
case "$backend" in
    rpi-lgpio) extra=(rpi-lgpio) ;;
    rpi-gpio) extra=(RPi.GPIO) ;;
    none) extra=() ;;
esac
# Build from a copy inside the install, so the source tree stays as it was.
build=$opt/.build
rm -rf "$build" && mkdir -p "$build"
cp -r "$src/pyproject.toml" "$src/README.md" "$src/controller" "$src/firmware_bridge" "$build/"
"$opt/bin/pip" install -q --disable-pip-version-check --upgrade "$build" "${extra[@]}"
rm -rf "$build"
echo "installed mahjong-table into $opt (GPIO backend: $backend)"

install -d -m 0755 "$share"
cp -r "$src/hardware/." "$share/"
cp "$src/README.md" "$share/"
cp -r "$src/docs" "$share/"
if [ "$program_only" = 1 ]; then
    echo "installed the program only (no table daemon)"
    exit 0
fi
install -d -m 0755 "$etc" "$(dirname "$unit")" "$(dirname "$udev")"
install -d -m 0750 "$state"
same() { [ "$(realpath -m "$1")" = "$(realpath -m "$2")" ]; }
if [ -n "$config" ]; then
    same "$config" "$etc/table.toml" || install -m 0640 "$config" "$etc/table.toml"
elif [ ! -f "$etc/table.toml" ]; then
    example_config > "$etc/table.toml.new"
    install -m 0640 "$etc/table.toml.new" "$etc/table.toml" && rm -f "$etc/table.toml.new"
fi
if [ -n "$tileset" ]; then
    same "$tileset" "$etc/tileset.toml" || install -m 0644 "$tileset" "$etc/tileset.toml"
    touch "$etc/.installed-tileset"
elif [ ! -f "$etc/tileset.toml" ]; then
    echo "install.sh: no tile set yet: give --tileset FILE, or enrol one with" \
        "mahjong-table diag tiles enroll NAME" >&2
fi
# The unit names its paths under /; under a prefix they point into it.
sed -e "s#/opt/mahjong-table#$opt#g" -e "s#/etc/mahjong-table#$etc#g" \
    -e "s#/usr/share/mahjong-table#$share#g" -e "s#/var/lib/mahjong-table#$state#g" \
    "$src/deploy/systemd/mahjong-table.service" > "$unit.new"
mv "$unit.new" "$unit"
chmod 0644 "$unit"
install -m 0644 "$src/deploy/udev/99-mahjong-mcu.rules" "$udev"

if [ -n "$service_user" ]; then  # the daemon's user owns its state and reads its config
    group=$(id -gn "$service_user")
    chgrp "$group" "$etc/table.toml" "$state" && chown "$service_user" "$state"
fi
if [ "$system" = 1 ]; then
    udevadm control --reload-rules && udevadm trigger --subsystem-match=tty || true
    systemctl daemon-reload
    systemctl enable mahjong-table >/dev/null
fi
as_daemon=()
if [ -n "$service_user" ]; then
    as_daemon=(setpriv --reuid="$service_user" --regid="$(id -g "$service_user")" --init-groups)
fi
if ! "${as_daemon[@]}" "$opt/bin/mahjong-table" config check "$etc/table.toml"; then
    echo "install.sh: the config does not pass its check${service_user:+ (as user $service_user)}: fix $etc/table.toml, then" \
        "systemctl restart mahjong-table (the daemon was not started)" >&2
    exit 1
fi
if [ "$system" = 1 ]; then
    systemctl restart mahjong-table
    echo "running: systemctl status mahjong-table; mahjong-table diag status"
else
    echo "installed under $prefix (nothing started)"
fi

#!/usr/bin/env bash
# Installs mahjong-table on a table's Raspberry Pi (Raspberry Pi OS 64-bit, run as root):
# a virtualenv in /opt/mahjong-table, the systemd unit, the udev rule, the example config.
# Re-running upgrades in place and keeps /etc/mahjong-table/table.toml.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 2; }
apt-get install -y -q python3-venv python3-dev >/dev/null

id mahjong >/dev/null 2>&1 || useradd --system --home /var/lib/mahjong-table --shell /usr/sbin/nologin mahjong
getent group gpio >/dev/null || groupadd --system gpio
usermod -aG dialout,gpio mahjong

python3 -m venv /opt/mahjong-table
# A Pi 5 has no RPi.GPIO; rpi-lgpio provides the same module there.
if grep -q "Raspberry Pi 5" /proc/device-tree/model 2>/dev/null; then
    /opt/mahjong-table/bin/pip install -q "$src" rpi-lgpio
else
    /opt/mahjong-table/bin/pip install -q "$src[pi]"
fi

install -d -m 0755 /usr/share/mahjong-table /etc/mahjong-table
cp -r "$src/hardware/." /usr/share/mahjong-table/
cp "$src/README.md" /usr/share/mahjong-table/
[ -f /etc/mahjong-table/table.toml ] || install -m 0640 -g mahjong "$src/deploy/table.example.toml" /etc/mahjong-table/table.toml
install -m 0644 "$src/deploy/systemd/mahjong-table.service" /etc/systemd/system/
install -m 0644 "$src/deploy/udev/99-mahjong-mcu.rules" /etc/udev/rules.d/
udevadm control --reload-rules && udevadm trigger --subsystem-match=tty || true
systemctl daemon-reload
/opt/mahjong-table/bin/mahjong-table config check /etc/mahjong-table/table.toml
systemctl enable --now mahjong-table
echo "installed: systemctl status mahjong-table; journalctl -u mahjong-table -f"

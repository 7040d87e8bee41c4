#!/usr/bin/env bash
# Makes the venue CA and the certificates of the broker, the recorder and each table.
#
#   make-certs.sh DIR ca                       the venue CA (once; keep venue-ca.key offline)
#   make-certs.sh DIR broker NAME|IP...        the broker's certificate, valid for these names
#   make-certs.sh DIR hub                      the recorder's client certificate (name "hub")
#   make-certs.sh DIR dashboard                a read-only client certificate
#   make-certs.sh DIR table TABLE_ID...        one client certificate per table
#   make-certs.sh DIR bridge VENUE             a venue broker's certificate on the league broker
#
# A client certificate's common name is its MQTT user name (use_identity_as_username), so a
# table's certificate carries its table id. Keys are ECDSA P-256; certificates last 825 days.
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
dir=$1; what=$2; shift 2
days=825
mkdir -p "$dir"
cd "$dir"
umask 077

need_ca() {
    [ -f venue-ca.crt ] && [ -f venue-ca.key ] || {
        echo "make-certs.sh: no venue CA in $PWD: run '$0 $dir ca' first" >&2; exit 1; }
}

new_key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1" 2>/dev/null; }

sign() {  # sign NAME EXTENSIONS
    local name=$1 ext=$2
    new_key "$name.key"
    openssl req -new -key "$name.key" -subj "/O=mahjong-table venue/CN=$name" -out "$name.csr"
    openssl x509 -req -in "$name.csr" -CA venue-ca.crt -CAkey venue-ca.key -CAcreateserial \
        -days "$days" -sha256 -extfile <(printf '%s\n' "$ext") -out "$name.crt" 2>/dev/null
    rm -f "$name.csr"
    echo "made $PWD/$name.crt and $name.key"
}

client() {
    sign "$1" "basicConstraints=CA:FALSE
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid,issuer
keyUsage=digitalSignature
extendedKeyUsage=clientAuth"
}

case $what in
    ca)
        [ ! -f venue-ca.key ] || { echo "make-certs.sh: $PWD/venue-ca.key exists; not replacing it" >&2; exit 1; }
        new_key venue-ca.key
        openssl req -x509 -new -key venue-ca.key -sha256 -days 3650 \
            -subj "/O=mahjong-table venue/CN=venue CA" -out venue-ca.crt
        echo "made $PWD/venue-ca.crt and venue-ca.key"
        ;;
    broker)
        need_ca
        [ $# -ge 1 ] || usage
        alt=""
        for name in "$@"; do
            if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then alt+="IP:$name,"; else alt+="DNS:$name,"; fi
        done
        sign broker "basicConstraints=CA:FALSE
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid,issuer
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=${alt%,}"
        ;;
    hub | dashboard)
        need_ca
        client "$what"
        ;;
    bridge)
        need_ca
        [ $# -eq 1 ] && [[ $1 =~ ^[a-z0-9][a-z0-9_-]{0,24}$ ]] || usage
        client "bridge-$1"
        ;;
    table)
        need_ca
        [ $# -ge 1 ] || usage
        for table in "$@"; do
            if ! [[ $table =~ ^[a-z0-9][a-z0-9_-]{0,31}$ ]]; then
                echo "make-certs.sh: '$table' is not a table id (a-z, 0-9, _ and -, up to 32)" >&2; exit 2
            fi
            if [[ $table == hub || $table == dashboard || $table == bridge-* ]]; then
                echo "make-certs.sh: '$table' is reserved for the recorder, dashboards and bridges" >&2; exit 2
            fi
            client "$table"
        done
        ;;
    *) usage ;;
esac

#!/bin/sh
# Installs the Debian packages flashlab needs, only when some are missing.
set -e
PKGS="build-essential clang pkg-config libsqlite3-dev sqlite3 libyaml-dev
gnuplot-nox libfuse3-dev fuse3 valgrind parallel git fio stress-ng
libclang-rt-14-dev python3 slurm-wlm munge mtd-utils zlib1g-dev liblzo2-dev
attr acl bindfs python3-wheel python3-venv e2fsprogs xfsprogs btrfs-progs"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing

# fetch.sh (sourced by check-linux.sh): qemu installed with apt-get when
# missing; Debian's kernel and busybox-static not installed but unpacked
# from their .debs (apt-get download, dpkg-deb -x) into $B/root; the
# guest's mount timer built static.
need_pkgs=""
command -v qemu-system-x86_64 >/dev/null 2>&1 || need_pkgs="$need_pkgs qemu-system-x86"
[ -x /usr/sbin/nandwrite ] || need_pkgs="$need_pkgs mtd-utils"
command -v python3 >/dev/null 2>&1 || need_pkgs="$need_pkgs python3"
if [ -n "$need_pkgs" ]; then
    echo "check-linux: installing$need_pkgs"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need_pkgs
fi
if ! ls "$B"/root/boot/vmlinuz-* >/dev/null 2>&1 || [ ! -x "$B/root/bin/busybox" ]; then
    # linux-image-amd64 is a metapackage: its dependency is the kernel
    kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
    if [ -z "$kpkg" ]; then
        apt-get update -qq
        kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ {print $2; exit}')
    fi
    [ -n "$kpkg" ] || die "cannot resolve linux-image-amd64 to a kernel package"
    echo "check-linux: downloading $kpkg and busybox-static into $B/deb"
    rm -rf "$B/deb" "$B/root"
    mkdir -p "$B/deb" "$B/root"
    (cd "$B/deb" && apt-get download "$kpkg" busybox-static) || die "apt-get download failed"
    for d in "$B"/deb/*.deb; do dpkg-deb -x "$d" "$B/root"; done
fi
KERNEL=$(ls "$B"/root/boot/vmlinuz-* | head -n 1)
KVER=${KERNEL##*/vmlinuz-}
MODS="$B/root/lib/modules/$KVER/kernel"
[ -f "$MODS/drivers/mtd/nand/raw/nandsim.ko" ] ||
    die "$KVER has no nandsim.ko (looked for it uncompressed in $MODS)"
if [ ! -x "$B/mnttime" ] || [ "$HERE/mnttime.c" -nt "$B/mnttime" ]; then
    cc -static -O2 -Wall -o "$B/mnttime" "$HERE/mnttime.c" || die "cannot build mnttime static (libc6-dev)"
fi
echo "check-linux: kernel $KVER, $(qemu-system-x86_64 --version | head -n 1)"

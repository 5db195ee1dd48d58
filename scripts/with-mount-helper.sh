#!/bin/sh
# with-mount-helper.sh HELPER CMD [ARG...]: run CMD (as root) where
# `mount -t fuse.flashlab` runs HELPER, without installing anything.
# mount(8) looks for helpers in /sbin only, so CMD runs in a private mount
# namespace in which HELPER is bound over the generic FUSE helper
# (/sbin/mount.fuse: mount(8) runs it for type fuse, and for fuse.SUBTYPE
# when there is no /sbin/mount.fuse.SUBTYPE) and over
# /sbin/mount.fuse.flashlab if one is installed.  Nothing changes outside.
# CMD unmounts what it mounted: a FUSE daemon keeps its namespace alive.
# Bound elsewhere, HELPER no longer finds the flashlab beside it, and
# mount(8) resets PATH: FLASHLAB_BIN names it.
[ $# -ge 2 ] || { echo "usage: $0 HELPER CMD [ARG...]" >&2; exit 2; }
helper=$(readlink -f "$1") || exit 2
shift
[ -x "${helper%/*}/flashlab" ] && FLASHLAB_BIN=${helper%/*}/flashlab && export FLASHLAB_BIN
exec unshare -m --propagation private sh -c '
    t=$(readlink -f /sbin/mount.fuse) && [ -e "$t" ] ||
        { echo "with-mount-helper: no /sbin/mount.fuse (Debian fuse3)" >&2; exit 2; }
    mount --bind "$0" "$t" || exit 2
    t=/sbin/mount.fuse.flashlab
    [ ! -e "$t" ] || mount --bind "$0" "$t" || exit 2
    exec "$@"' "$helper" "$@"

#!/usr/bin/env bash
# Debian 13 (trixie: HDF5 1.14.5, Open MPI 5.0.7, MPICH 4.2, netCDF 4.9.3, h5py, gcc 14) beside the
# Debian 12 this machine runs, as a chroot built from Debian's own packages, so that the suite checks
# colldiag against both HDF5 versions.
#
#   tests/debian13.sh setup          make the chroot if it is not there (debootstrap, ~10 min; as root)
#   tests/debian13.sh run CMD...     run CMD inside it, in this tree (bind-mounted at /colldiag)
#
# The chroot lives outside the tree, in $COLLDIAG_DEBIAN13 (default /var/cache/colldiag/debian13), and
# is kept: a second run downloads nothing. A step that cannot run (not root, no debootstrap, no mirror)
# says so and fails: it never skips silently.
set -u
ROOT=${COLLDIAG_DEBIAN13:-/var/cache/colldiag/debian13}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PKGS="make gcc gfortran pkg-config libc6-dev libhdf5-openmpi-dev openmpi-bin libopenmpi-dev libhdf5-mpich-dev libmpich-dev mpich
      hdf5-tools python3-h5py python3-h5py-mpi python3-mpi4py libnetcdf-mpi-dev jq"

die() { echo "debian13: $*" >&2; exit 1; }

mirror() { # the mirror this machine's apt uses
    local m
    m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null)
    [ -n "$m" ] || m=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    echo "${m:-http://deb.debian.org/debian}"
}

mounts() { # bind what the chroot's programs need, and this tree; undone by unmounts
    local m
    for m in proc dev dev/shm sys; do
        mountpoint -q "$ROOT/$m" || mount --bind "/$m" "$ROOT/$m" || return 1
    done
    mkdir -p "$ROOT/colldiag"
    mountpoint -q "$ROOT/colldiag" && umount "$ROOT/colldiag"
    mount --bind "$TOP" "$ROOT/colldiag"
}

unmounts() {
    local m
    for m in colldiag sys dev/shm dev proc; do mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"; done
    return 0
}

setup() {
    [ "$(id -u)" = 0 ] || die "making the chroot needs root (debootstrap, mount)"
    if [ -f "$ROOT/.colldiag-ready" ]; then # kept: install only what a newer list added
        local missing="" p
        for p in $PKGS; do chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"; done
        if [ -n "$missing" ]; then
            echo "debian13: installing$missing"
            local m
            for m in proc dev dev/shm sys; do mountpoint -q "$ROOT/$m" || mount --bind "/$m" "$ROOT/$m"; done
            chroot "$ROOT" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$missing" >/dev/null 2>&1
            local rc=$?
            unmounts
            [ $rc = 0 ] || die "installing$missing failed"
        fi
        echo "debian13: $ROOT is ready"
        return 0
    fi
    if ! command -v debootstrap >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null || die "cannot install debootstrap"
    fi
    local tmp="$ROOT.part"
    unmounts_of() { local m; for m in colldiag sys dev/shm dev proc; do mountpoint -q "$1/$m" && umount -l "$1/$m"; done; return 0; }
    unmounts_of "$tmp"
    rm -rf "$tmp"
    mkdir -p "$(dirname "$ROOT")"
    echo "debian13: debootstrap trixie into $tmp from $(mirror) (about 6 minutes)"
    if ! debootstrap --variant=minbase trixie "$tmp" "$(mirror)" >"$tmp.log" 2>&1; then
        # dpkg has been seen to stop on libltdl-dev's configuration: finish it inside
        chroot "$tmp" bash -c 'DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq' >>"$tmp.log" 2>&1 ||
            { tail -20 "$tmp.log"; die "debootstrap failed (log: $tmp.log)"; }
    fi
    cat /etc/resolv.conf >"$tmp/etc/resolv.conf" 2>/dev/null
    local m
    for m in proc dev dev/shm sys; do mount --bind "/$m" "$tmp/$m"; done
    echo "debian13: installing $(echo $PKGS | wc -w) packages inside"
    chroot "$tmp" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(echo $PKGS)" \
        >>"$tmp.log" 2>&1 || { unmounts_of "$tmp"; tail -20 "$tmp.log"; die "installing the packages failed (log: $tmp.log)"; }
    # deb-src: netCDF-C's own parallel tests come from the release's source package
    sed -n 's/^deb \(.*\)/deb-src \1/p' "$tmp/etc/apt/sources.list" >"$tmp/etc/apt/sources.list.d/src.list"
    chroot "$tmp" apt-get update -qq >>"$tmp.log" 2>&1
    unmounts_of "$tmp"
    touch "$tmp/.colldiag-ready"
    mv "$tmp" "$ROOT" || die "cannot move $tmp to $ROOT"
    echo "debian13: $ROOT is ready ($(chroot "$ROOT" pkg-config --modversion hdf5-openmpi 2>/dev/null || echo '?'))"
}

run() {
    [ -f "$ROOT/.colldiag-ready" ] || die "no chroot at $ROOT: make deps (or tests/debian13.sh setup) first"
    [ "$(id -u)" = 0 ] || die "running in the chroot needs root (chroot, mount)"
    trap unmounts EXIT
    mounts || die "cannot bind-mount into $ROOT"
    # Open MPI 5 inside a chroot: shared memory and self only (no network transports to probe)
    chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 OMPI_MCA_btl=self,sm \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${FUZZ_SEED:+FUZZ_SEED=$FUZZ_SEED} \
        bash -c 'cd /colldiag && "$@"' _ "$@"
}

case "${1:-}" in
setup) setup ;;
run) shift; run "$@" ;;
*) echo "usage: tests/debian13.sh setup | run CMD..." >&2; exit 2 ;;
esac

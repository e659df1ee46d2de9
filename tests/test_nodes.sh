#!/usr/bin/env bash
# tests/nodes.sh does what it says: MPI reports N hosts of K ranks each, the caller's environment and
# LD_PRELOAD reach every rank, the program's exit status is the script's, a launcher's -n/-x/-genv are
# honoured, a shaped link is slower than an unshaped one, and bad use fails with status 2 and a reason.
# Usage: tests/test_nodes.sh openmpi|mpich
set -u
cd "$(dirname "$0")/.."
K=$1
B=build/$K
P=$B/nodes_probe
[ -x "$P" ] || { echo "FAIL $P is not built (make MPI=$K all)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_test_nodes.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
check() { # description, expected status, expected hosts line (or ""), command...
    local what=$1 want=$2 line=$3; shift 3
    local rc=0
    "$@" >"$T/out" 2>&1 || rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $what: exit $rc, expected $want"; sed 's/^/     /' "$T/out" | tail -20; fail=1; return
    fi
    if [ -n "$line" ] && ! grep -qx "$line" "$T/out"; then
        echo "FAIL $what: no line '$line'"; sed 's/^/     /' "$T/out" | tail -20; fail=1; return
    fi
    echo "ok   $what"
}
# a library every program can preload harmlessly, to see LD_PRELOAD reach the ranks
LIBM=$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')

# N hosts, K ranks each, the environment, LD_PRELOAD and the program's exit status (rank 0 exits 3)
export COLLDIAG_NODES_PROBE="a value with spaces"
check "2 nodes x 2 ranks: 2 hosts, shared splits of 2, environment and status 3" 3 "4 ranks on 2 hosts" \
    env LD_PRELOAD="$LIBM" tests/nodes.sh 2 2 --mpi "$K" -- "$P" 2 3
grep -c "shared split 2, probe a value with spaces, LD_PRELOAD set" "$T/out" | grep -qx 4 ||
    { echo "FAIL 2x2: not every rank saw its split of 2, the probe and LD_PRELOAD"; cat "$T/out"; fail=1; }
[ "$(grep -o 'host node[0-9]*' "$T/out" | sort -u | tr '\n' ' ')" = "host node0 host node1 " ] ||
    { echo "FAIL 2x2: the hosts are not node0 and node1"; cat "$T/out"; fail=1; }
check "4 nodes x 2 ranks: 4 hosts" 0 "8 ranks on 4 hosts" tests/nodes.sh 4 2 --mpi "$K" -- "$P" 4
grep -c "shared split 2" "$T/out" | grep -qx 8 || { echo "FAIL 4x2: a shared split is not 2"; cat "$T/out"; fail=1; }
# as a test script's launcher: -n 3 fills node0's two slots, then node1; -x / -genv set a variable
if [ "$K" = openmpi ]; then
    check "as a launcher: -n 3 -x VAR=VALUE" 0 "3 ranks on 2 hosts" \
        tests/nodes.sh 2 2 --mpi openmpi -- -n 3 -x COLLDIAG_NODES_PROBE=given "$P" 2
else
    check "as a launcher: -n 3 -genv VAR VALUE" 0 "3 ranks on 2 hosts" \
        tests/nodes.sh 2 2 --mpi mpich -- -n 3 -genv COLLDIAG_NODES_PROBE given "$P" 2
fi
grep -c "probe given" "$T/out" | grep -qx 3 || { echo "FAIL as a launcher: the variable did not reach 3 ranks"; cat "$T/out"; fail=1; }
# ROMIO elects an aggregator a host: as many as the nodes (on one host it would be one). MPICH's ROMIO
# says so through MPI_File_get_info; Open MPI 4.1 answers that with the user's hints alone, so there
# ROMIO's own list of its hints at open (ROMIO_PRINT_HINTS) says it.
for shape in "2 2" "4 2"; do
    n=${shape% *}
    if [ "$K" = openmpi ]; then
        check "ROMIO on $n nodes: cb_nodes $n" 0 "" env OMPI_MCA_io=romio321 ROMIO_PRINT_HINTS=1 \
            COLLDIAG_NODES_PROBE_FILE="$T/cb" tests/nodes.sh $shape --mpi openmpi -- "$P" "$n"
        grep -qE "^key = cb_nodes +value = $n *$" "$T/out" || { echo "FAIL ROMIO's cb_nodes is not $n"; grep cb_nodes "$T/out"; fail=1; }
    else
        check "ROMIO on $n nodes: cb_nodes $n" 0 "cb_nodes $n" env \
            COLLDIAG_NODES_PROBE_FILE="$T/cb" tests/nodes.sh $shape --mpi mpich -- "$P" "$n"
    fi
done
# a failing rank fails the script (every rank but rank 0 is told a wrong node count: rank 0 judges)
check "a wrong answer fails the script" 1 "FAIL 2 hosts, expected 3" tests/nodes.sh 2 2 --mpi "$K" -- "$P" 3
# bad use: status 2 and a reason, nothing run
check "no -- before the program" 2 "" tests/nodes.sh 2 2 "$P" 2
grep -q "no -- before the program" "$T/out" || { echo "FAIL no reason given"; fail=1; }
check "an unknown option" 2 "" tests/nodes.sh 2 2 --speed 1 -- "$P"
check "N not a number" 2 "" tests/nodes.sh two 2 -- "$P"
# a shaped link: still right, and no faster than its rate. 80mbit is 10 MB/s: 8 MB take 0.8 s or more
# (the bucket's 256 KiB aside); unshaped, the same transfer runs several times faster.
if [ "$K" = mpich ]; then
    # MPICH's UCX uses shared memory between simulated nodes (tests/nodes.sh says why): a rate would be a lie
    check "--rate with MPICH: refused" 2 "" tests/nodes.sh 2 2 --rate 80mbit --mpi mpich -- "$P" 2
    grep -q "UCX" "$T/out" || { echo "FAIL --rate refused for MPICH without the reason"; cat "$T/out"; fail=1; }
elif command -v tc >/dev/null 2>&1; then
    rate_of() { sed -n 's/^link \([0-9.]*\) MB\/s$/\1/p' "$T/out"; }
    check "unshaped: 8 MB from node0 to node1" 0 "4 ranks on 2 hosts" tests/nodes.sh 2 2 --mpi "$K" -- "$P" 2 0 8000000
    free=$(rate_of)
    check "--rate 80mbit: still right" 0 "4 ranks on 2 hosts" tests/nodes.sh 2 2 --rate 80mbit --mpi "$K" -- "$P" 2 0 8000000
    shaped=$(rate_of)
    echo "     link: unshaped ${free:-?} MB/s, shaped to 10 MB/s ${shaped:-?} MB/s"
    awk -v f="${free:-0}" -v s="${shaped:-0}" 'BEGIN { exit !(s > 0 && s < 10 * 1.4 && f > 3 * s) }' ||
        { echo "FAIL the shaped link is not shaped to 10 MB/s (or the unshaped one is not faster)"; fail=1; }
    # no netem in the kernel: --delay says so and runs nothing; with netem: still right
    if unshare --net tc qdisc add dev lo root netem delay 1us 2>/dev/null; then
        check "--delay 1ms: still right" 0 "4 ranks on 2 hosts" tests/nodes.sh 2 2 --delay 1ms --mpi "$K" -- "$P" 2
    else
        check "--delay without netem: refused" 2 "" tests/nodes.sh 2 2 --delay 1ms --mpi "$K" -- "$P" 2
        grep -q "netem" "$T/out" || { echo "FAIL --delay refused without naming netem"; fail=1; }
    fi
fi
# a hung program is killed by a timeout (check.sh's), and takes every rank and daemon with it
check "a hung run ends at its timeout" 124 "" timeout 8 tests/nodes.sh 2 2 --mpi "$K" -- sleep 1234
sleep 0.5
pgrep -fx 'sleep 1234' >/dev/null && { echo "FAIL a rank of the hung run outlived it"; pgrep -fa 'sleep 1234'; fail=1; }
# no leftovers: every namespace holder and veth is gone
sleep 0.2
if ip link show 2>/dev/null | grep -q 'cdn[0-9]*[ab][0-9]'; then echo "FAIL a veth was left behind"; ip link show | grep cdn; fail=1; fi
pgrep -fx 'sleep 100000' >/dev/null && { echo "FAIL a namespace holder was left running"; fail=1; }
# nor the launcher's cgroup (where cgroup v2 is mounted: nodes.sh kills the run through it)
cg=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$cg" ] && find "$cg" -maxdepth 3 -type d -name 'colldiag_nodes.*' 2>/dev/null | grep -q .; then
    echo "FAIL a run's cgroup was left behind"; find "$cg" -maxdepth 3 -type d -name 'colldiag_nodes.*'; fail=1
fi
[ "$fail" = 0 ] && echo "test_nodes ($K): every check passed"
exit "$fail"

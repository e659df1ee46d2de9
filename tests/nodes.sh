#!/usr/bin/env bash
# Nodes on one machine: runs PROGRAM with N x K ranks on N simulated nodes.
#
#   tests/nodes.sh N K [--rate RATE --delay DELAY] [--mpi openmpi|mpich] -- PROGRAM ARGS...
#
# Each node is a network and UTS namespace of its own (its hostname nodeI, its address 10.199.X.(I+1)),
# held open by a process of this script; a veth pair joins each to a bridge in one more namespace, the
# switch. Every node sees the same directories (one filesystem, as a parallel file system would be). The
# launcher runs inside node0's namespaces: Open MPI's mpirun starts the other nodes' daemons through its
# rsh launcher with an agent that enters their namespaces (no ssh), MPICH's mpiexec.hydra likewise
# (-launcher rsh -launcher-exec). Ranks of one node talk through shared memory, ranks of two nodes through
# TCP over the veths alone (Open MPI: btl self,vader,tcp and both TCP layers kept to the nodes' subnet;
# MPICH: -iface). MPI then reports N hosts: MPI_Get_processor_name is the node's hostname, and an
# MPI_COMM_TYPE_SHARED split gives K ranks. The caller's environment reaches every rank (COLLDIAG_*,
# OMPI_MCA_*, LD_PRELOAD, and every other variable, as mpirun -x passes them), and the script's exit
# status is the program's (the launcher's). --rate (e.g. 8gbit: 1 GB/s) shapes every node's link both
# ways with a token bucket (tc tbf); --delay (e.g. 20us) adds tc netem's delay, where the kernel has
# netem (CONFIG_NET_SCH_NETEM: this machine's has not, and --delay then fails with that reason). MPI=mpich (or --mpi mpich) uses MPICH; the default is Open MPI.
# Where it cannot run (not root, no ip, no unshare or nsenter, no veth), it says so and exits 2: never a
# silent skip. Everything it made goes when it ends.
set -u
die() { echo "nodes.sh: $*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: tests/nodes.sh N K [--rate RATE --delay DELAY] [--mpi openmpi|mpich] -- PROGRAM ARGS..."
N=$1 K=$2; shift 2
RATE="" DELAY="" MPIK=${MPI:-openmpi}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
    --rate) RATE=$2; shift 2 ;;
    --delay) DELAY=$2; shift 2 ;;
    --mpi) MPIK=$2; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
    esac
done
case "$MPIK" in openmpi | mpich) ;; *) die "--mpi takes openmpi or mpich, not $MPIK" ;; esac
[ "${1:-}" = "--" ] || die "no -- before the program"
shift
# mpirun's own options before the program, so that a test script's launcher can be this script
# (RUN="tests/nodes.sh 2 2 --mpi openmpi --", then $RUN -n 3 -x VAR PROGRAM): -n/-np P runs P ranks
# (filling node0's K slots first, as mpirun does with a hostfile), -x VAR[=VALUE] and -genv VAR VALUE
# set what the ranks see, --oversubscribe is implied.
NP=""
while [ $# -gt 0 ]; do
    case "$1" in
    -n | -np) NP=$2; shift 2 ;;
    -x) case "$2" in *=*) export "${2?}" ;; esac; shift 2 ;;
    -genv) export "$2=$3"; shift 3 ;;
    --oversubscribe) shift ;;
    --) shift; break ;;
    -*) die "unknown launcher option $1 (nodes.sh takes -n, -np, -x, -genv, --oversubscribe)" ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || die "no program"
case "$N$K${NP:-0}" in *[!0-9]*) die "N, K and -n must be numbers" ;; esac
NP=${NP:-$((N * K))}
[ "$N" -ge 1 ] && [ "$N" -le 64 ] && [ "$K" -ge 1 ] || die "N must be 1..64 and K at least 1"
[ "$(id -u)" = 0 ] || die "simulated nodes need root (network and UTS namespaces, veth pairs)"
for c in ip unshare nsenter; do command -v $c >/dev/null 2>&1 || die "$c is not installed (iproute2, util-linux)"; done
[ -z "$RATE$DELAY" ] || command -v tc >/dev/null 2>&1 || die "tc is not installed (iproute2): no link shaping"
[ -z "$RATE$DELAY" ] || [ "$MPIK" != mpich ] ||
    die "--rate and --delay shape the nodes' TCP link, which MPICH's UCX does not use between simulated nodes (see below): use Open MPI"
if [ -n "$DELAY" ] && ! unshare --net tc qdisc add dev lo root netem delay 1us 2>/dev/null; then
    die "--delay needs tc netem, which this kernel lacks (CONFIG_NET_SCH_NETEM); --rate works without it"
fi

# A preloaded library is for the ranks: ip, unshare, nsenter and the launcher run without it, and the
# ranks get it back through the launcher (-x / -genv)
RANK_PRELOAD=${LD_PRELOAD:-}
unset LD_PRELOAD

# A subnet of its own per run (runs may overlap: CI runs one at a time, a developer may not)
NET=$(( ($$ % 200) + 20 ))
TAG=cdn$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_nodes.XXXXXX")
HOLD=() # the processes that hold each node's namespaces (and the switch's)
NSIDS=() # their network namespaces, read when made (a signal to our process group kills the holders too)
LAUNCHER=""
# Nothing outlives the run: on its end, or on a signal (check.sh's timeout), the launcher goes, then every
# process inside a node's network namespace (ranks, daemons, proxies: they are no children of ours once
# the launcher is gone), then the holders, and with them the namespaces, veths and bridge.
# Where cgroup v2 is writable (root, Linux 5.14+: cgroup.kill), the launcher starts in a cgroup of its
# own, and every process it, its agents and their daemons ever make is born in it, whatever setsid or
# double fork it does: one write to cgroup.kill ends them all, the kernel closing the race with a fork in
# flight. Scans of the nodes' namespaces then only confirm. Scans alone (the fallback) race, as below:
# fresh-clone CIs of 2026-12-01 saw ranks outlive ten quiet scans.
# One scan is not enough: a launcher told to stop may still be starting a node's daemon (an agent between
# fork and setns is in no node's namespace yet), and on a loaded machine that daemon starts its ranks
# after the scan (CI saw 4 ranks outlive a timeout so). So the scans (which take the launcher too: it
# runs in node0's namespace) repeat until ten in a row, 0.1 s apart, find nothing (at most 30 s). Ten,
# not three: a fresh-clone CI of 2026-12-01 saw a node's orted start 4 ranks after three quiet scans
# (0.3 s) of a hung run's timeout, on a loaded machine; they outlived it.
kill_in_nodes() { # sets KILLED to how many it killed; two processes a scan, not one per process
    local pids=() p n q dir ns
    # a timeout signals our whole process group, the holders included: the namespaces are named as
    # read when made, and stay alive while anything is in them
    while read -r dir ns; do
        for n in "${NSIDS[@]}"; do
            if [ "$ns" = "$n" ]; then q=${dir#/proc/}; pids+=("${q%/ns}"); fi
        done
    done < <(find /proc/[0-9]*/ns -maxdepth 1 -name net -printf '%h %l\n' 2>/dev/null)
    # an agent not yet inside its node: the script (sh WORK/agent ...) or its nsenter
    for q in $(grep -lsF -- "$WORK/agent" /proc/[0-9]*/cmdline 2>/dev/null); do
        q=${q#/proc/}; pids+=("${q%/cmdline}")
    done
    KILLED=0
    for p in "${pids[@]}"; do
        case " ${HOLD[*]} $$ " in *" $p "*) continue ;; esac # ours: they end quietly below
        kill -9 "$p" 2>/dev/null && KILLED=$((KILLED + 1))
    done
}
# the launcher's cgroup: made under ours (cgroup v2's "0::PATH"), named by this run; none where cgroup
# v2 is not mounted, not writable (not root, a container) or has no cgroup.kill (Linux before 5.14)
CG="" CG_HOME=""
cgroup_make() {
    local mnt own
    mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts 2>/dev/null)
    own=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null)
    [ -n "$mnt" ] && [ -n "$own" ] && [ -w "$mnt$own/cgroup.procs" ] || return 0
    mkdir "$mnt${own%/}/colldiag_nodes.$$" 2>/dev/null || return 0
    CG="$mnt${own%/}/colldiag_nodes.$$" CG_HOME="$mnt$own"
    # a round trip first: were this shell to stay in, cgroup.kill would end the script with its run
    if [ ! -e "$CG/cgroup.kill" ] || ! { echo $$ >"$CG/cgroup.procs" && echo $$ >"$CG_HOME/cgroup.procs"; } 2>/dev/null; then
        echo $$ >"$CG_HOME/cgroup.procs" 2>/dev/null
        rmdir "$CG" 2>/dev/null
        CG=""
    fi
}
# kills everything in the launcher's cgroup and waits (at most 10 s) until the kernel says it is empty
cgroup_end() {
    [ -n "$CG" ] || return 0
    # a launcher still running is killed, not reported: bash would print its "Killed" on our stderr
    [ -n "$LAUNCHER" ] && disown "$LAUNCHER" 2>/dev/null
    echo 1 >"$CG/cgroup.kill" 2>/dev/null
    # "populated 0" comes a moment before the kernel lets the cgroup go (rmdir: EBUSY): both are waited for
    for _ in $(seq 100); do
        grep -qx 'populated 0' "$CG/cgroup.events" 2>/dev/null && rmdir "$CG" 2>/dev/null && break
        sleep 0.1
    done
}
cleanup() {
    # a second signal must not cut the cleanup short (the timeout signals our process group, and a
    # launcher's own teardown may signal it again): a cut-short cleanup left ranks and a cgroup behind
    trap - EXIT
    trap '' INT TERM
    local p quiet=0 round=0 enough=10
    [ -n "$LAUNCHER" ] && kill "$LAUNCHER" 2>/dev/null
    # a cgroup took every process of the run: one confirming scan, not ten
    [ -n "$CG" ] && { cgroup_end; enough=1; }
    while [ "$quiet" -lt "$enough" ] && [ "$round" -lt 300 ]; do
        round=$((round + 1))
        kill_in_nodes
        if [ "$KILLED" = 0 ]; then
            quiet=$((quiet + 1))
        else
            quiet=0
        fi
        sleep 0.1
    done
    for p in "${HOLD[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 130' INT

# holder: a process in new network and UTS namespaces that lives until we kill it
holder() { # hostname
    unshare --net --uts sh -c "hostname $1; ip link set lo up; echo ready; exec sleep 100000" >"$WORK/$1.ready" 2>"$WORK/$1.err" &
    HOLD+=($!)
    for _ in $(seq 100); do
        if grep -q ready "$WORK/$1.ready" 2>/dev/null; then
            NSIDS+=("$(readlink "/proc/$!/ns/net")")
            return 0
        fi
        sleep 0.05
    done
    die "could not make the namespaces of $1: $(cat "$WORK/$1.err")"
}
holder switch
SW=${HOLD[0]}
nsenter -t "$SW" --net ip link add br0 type bridge || die "cannot make a bridge"
nsenter -t "$SW" --net ip link set br0 up
HOSTS=""
for i in $(seq 0 $((N - 1))); do
    holder "node$i"
    pid=${HOLD[$((i + 1))]}
    echo "$pid" >"$WORK/node$i.pid"
    ip link add "${TAG}a$i" type veth peer name "${TAG}b$i" || die "cannot make a veth pair (no veth support?)"
    ip link set "${TAG}a$i" netns "$pid"
    ip link set "${TAG}b$i" netns "$SW"
    nsenter -t "$SW" --net ip link set "${TAG}b$i" master br0
    nsenter -t "$SW" --net ip link set "${TAG}b$i" up
    nsenter -t "$pid" --net ip link set "${TAG}a$i" name eth0
    nsenter -t "$pid" --net ip addr add "10.199.$NET.$((i + 1))/24" dev eth0
    nsenter -t "$pid" --net ip link set eth0 up
    # both ways: the node's side (what it sends) and the switch's port (what it receives). A rate alone
    # is a token bucket of 256 KiB (more than one of the veth's 64 KiB offloaded segments, a fraction of
    # a millisecond at a benchmark's rates); with a delay, netem does both.
    for side in "$pid:eth0" "$SW:${TAG}b$i"; do
        sp=${side%%:*} dev=${side#*:}
        if [ -n "$DELAY" ]; then
            nsenter -t "$sp" --net tc qdisc add dev "$dev" root netem delay "$DELAY" ${RATE:+rate "$RATE"} || die "tc netem failed"
        elif [ -n "$RATE" ]; then
            nsenter -t "$sp" --net tc qdisc add dev "$dev" root tbf rate "$RATE" burst 256kb latency 100ms || die "tc tbf rate $RATE failed"
        fi
    done
    echo "10.199.$NET.$((i + 1)) $pid node$i" >>"$WORK/map"
    HOSTS="$HOSTS 10.199.$NET.$((i + 1))"
done
# the agent: "AGENT [options] HOST COMMAND...": runs COMMAND in HOST's namespaces, in this directory
cat >"$WORK/agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
host=\$1; shift
pid=\$(awk -v h="\$host" '\$1 == h || \$3 == h {print \$2}' "$WORK/map")
[ -n "\$pid" ] || { echo "nodes.sh agent: no node \$host" >&2; exit 1; }
exec nsenter -t "\$pid" --net --uts sh -c "cd '$PWD' && \$*"
EOF
chmod +x "$WORK/agent"
HEAD=$(cat "$WORK/node0.pid")

rc=0
# the launcher is born in the run's cgroup: this shell joins it for the fork and leaves right after
cgroup_make
[ -z "$CG" ] || echo $$ >"$CG/cgroup.procs" 2>/dev/null || { rmdir "$CG"; CG=""; }
if [ "$MPIK" = mpich ]; then
    # MPICH 4.0's ch4:ucx moves data between ranks of two nodes through UCX, and UCX judges two processes
    # to share a machine by the kernel's boot id, which namespaces share: it uses its shared-memory
    # transports between the simulated nodes, not their TCP link. Limiting UCX to TCP (UCX_TLS=tcp,self)
    # hangs UCX 1.13 at cleanup in 1 run of 3 here (openucx/ucx#8738), so MPICH keeps UCX's choice: its
    # ranks see N hosts, N proxies and their shared splits, but a shaped link does not slow them.
    # hydra: a proxy a node, started through the agent; their traffic on the nodes' subnet
    hl=$(for h in $HOSTS; do printf '%s:%s,' "$h" "$K"; done)
    nsenter -t "$HEAD" --net --uts mpiexec.hydra -launcher rsh -launcher-exec "$WORK/agent" -iface eth0 \
        -hosts "${hl%,}" -n "$NP" ${RANK_PRELOAD:+-genv LD_PRELOAD "$RANK_PRELOAD"} "$@" <&0 &
else
    for h in $HOSTS; do echo "$h slots=$K"; done >"$WORK/hostfile"
    # mpirun's rsh launcher warns "setpgid(...) failed in parent" when the agent it forked has already
    # made itself a group and exec'd (a race it loses now and then; harmless): the line is dropped from
    # its standard error, which a program's own output comparisons would otherwise see
    # every variable of the caller's, as mpirun -x passes them (its own and MPI's plumbing left out)
    xs=""
    for v in $(compgen -e); do
        case "$v" in OMPI_COMM_*|OMPI_MCA_orte_*|OMPI_MCA_pmix*|PMIX_*|_|PWD|OLDPWD|SHLVL|BASH_FUNC_*) continue ;; esac
        xs="$xs -x $v"
    done
    # shellcheck disable=SC2086
    # every node's daemon counts K slots of its own, so Open MPI believes no core is shared and its ranks
    # spin while they wait: on one host they share its cores, and a spinning rank holds back the one it
    # waits for (test_io quick at 2x2: 101 s spinning, 2.9 s yielding). The caller's setting wins.
    yield=""
    [ -n "${OMPI_MCA_mpi_yield_when_idle:-}" ] || yield="--mca mpi_yield_when_idle 1"
    nsenter -t "$HEAD" --net --uts env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun.openmpi --hostfile "$WORK/hostfile" -n "$NP" --oversubscribe \
        --mca plm_rsh_agent "$WORK/agent" --mca plm_rsh_no_tree_spawn 1 \
        --mca oob_tcp_if_include "10.199.$NET.0/24" --mca btl self,vader,tcp --mca btl_tcp_if_include "10.199.$NET.0/24" \
        $yield $xs ${RANK_PRELOAD:+-x "LD_PRELOAD=$RANK_PRELOAD"} "$@" <&0 2> >(grep -v "plm:rsh: Warning: setpgid" >&2) &
fi
# in the background, so that a signal interrupts this wait (bash runs a trap only between commands);
# the explicit <&0 keeps the caller's standard input for rank 0, as mpirun in the foreground would
LAUNCHER=$!
[ -z "$CG" ] || echo $$ >"$CG_HOME/cgroup.procs"
wait "$LAUNCHER" || rc=$?
LAUNCHER=""
exit $rc

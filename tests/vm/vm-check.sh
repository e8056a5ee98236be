#!/bin/bash
# vm-check.sh: boots a guest with a real multi-node topology under QEMU (TCG: no KVM needed) and
# runs tests/vm/guest-checks.sh in it on this build of libomp-lite (issue 47). No machine here has
# more than 2 CPUs or one NUMA node; the guest's kernel gives the runtime real sockets, nodes and
# L3 domains to find through hwloc and mbind.
#
# usage: vm-check.sh [--builddir DIR] [SHAPE...]   shapes: numa16 numa64 dies32 (default: all)
#   numa16: 2 sockets x 2 nodes x 4 cores (16 CPUs)
#   dies32: 1 socket, 4 dies (L3 domains) of 8 cores, one node (32 CPUs)
#   numa64: 2 sockets, 8 nodes of 8 cores (64 CPUs)
# Needs qemu-system-x86_64, a kernel in /boot/vmlinuz-* (Debian's linux-image-amd64) and
# busybox (busybox-static), which .ci/install-deps installs; without them it says why and exits
# 77 (automake's skip). Environment: VM_KERNEL (a kernel image), VM_TIMEOUT (seconds per
# boot, default 300; a guest that has not reached user space by then is skipped, with why),
# VM_BUDGET (no shape starts after this many seconds, default 540), VM_COMPARE=1 (print the
# placement rows of libgomp, LLVM's runtime and, with VM_BEFORE=BUILD, another libomp-lite
# build beside this one's: the table in docs/benchmarks.md), VM_PLACE_BIND (the bindings the placement check runs: "spread,close"),
# VM_KEEP (keep the work folder).
set -u
builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        *) break ;;
    esac
done
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
shapes=${*:-numa16 numa64 dies32}

skip() { echo "SKIP: vm-check: $*"; exit 77; }
qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is not installed (.ci/install-deps: qemu-system-x86)"
kernel=${VM_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || skip "no readable kernel in /boot/vmlinuz-* (.ci/install-deps: linux-image-amd64)"
busybox=$(command -v busybox) || skip "busybox is not installed (.ci/install-deps: busybox-static)"
ldd "$busybox" > /dev/null 2>&1 && skip "$busybox is not static (.ci/install-deps: busybox-static)"
command -v cpio > /dev/null || skip "cpio is not installed"
lib=$builddir/.libs/libomp-lite.so.0
progs="tests/integration/binding tests/integration/barrier tests/integration/reduction
tests/integration/single tests/vm/placement tests/integration/kmp_affinity"
for p in $lib $progs; do
    case $p in /*) f=$p ;; *) f=$builddir/$p ;; esac
    [ -x "$f" ] || [ -r "$f" ] || skip "$f is not built"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lite-vm.XXXXXX")
[ -n "${VM_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,t,omp-lite,llvm,proc,sys,tmp,dev,lib64}
cp "$busybox" "$root/bin/busybox"
copy_with_libs() { # FILE DEST: the file and every shared library ldd finds for it
    cp -L "$1" "$2"
    ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | while read -r l; do
        [ -e "$root$l" ] || { mkdir -p "$root$(dirname "$l")"; cp -L "$l" "$root$l"; }
    done
}
for p in $progs; do
    # libtool may leave a wrapper script beside the real program in .libs
    f=$builddir/$p
    [ -x "$builddir/$(dirname "$p")/.libs/$(basename "$p")" ] && f=$builddir/$(dirname "$p")/.libs/$(basename "$p")
    copy_with_libs "$f" "$root/t/"
done
copy_with_libs "$lib" "$root/omp-lite/"
llvm=$(ls /usr/lib/llvm-*/lib/libomp.so.5 2>/dev/null | tail -n 1)
[ -n "$llvm" ] && copy_with_libs "$llvm" "$root/llvm/"
if [ -n "${VM_BEFORE:-}" ] && [ -r "$VM_BEFORE/.libs/libomp-lite.so.0" ]; then
    mkdir -p "$root/before/omp-lite"
    copy_with_libs "$VM_BEFORE/.libs/libomp-lite.so.0" "$root/before/omp-lite/"
fi
cp "$srcdir/tests/vm/guest-checks.sh" "$root/guest-checks.sh"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm  # LLVM's runtime opens a shared-memory file at start
sh /guest-checks.sh
echo VMDONE
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

# One boot: SHAPE; prints the guest's lines, returns 0 on VMRESULT fail=0.
boot() {
    local shape=$1 smp numa="" mem=1024 min="" i set
    # What each shape runs: the full set on the 16-CPU shape, what their topology adds on the
    # others. All three took 35 + 63 + 34 s here; on this 2-CPU host loaded by other builds the
    # 64-CPU boot alone once took 5 minutes, hence the budget below.
    case $shape in
        numa16) smp=16,sockets=2,cores=8,threads=1; min=95; set=places,bind,display,many,tree,kmp,placement
                for i in 0 1 2 3; do
                    numa="$numa -object memory-backend-ram,id=m$i,size=256M"
                    numa="$numa -numa node,nodeid=$i,cpus=$((i * 4))-$((i * 4 + 3)),memdev=m$i"
                done ;;
        dies32) smp=32,sockets=1,dies=4,cores=8,threads=1; set=places,many ;;
        numa64) smp=64,sockets=2,cores=32,threads=1; min=95; mem=2048; set=many,tree,placement
                for i in 0 1 2 3 4 5 6 7; do
                    numa="$numa -object memory-backend-ram,id=m$i,size=256M"
                    numa="$numa -numa node,nodeid=$i,cpus=$((i * 8))-$((i * 8 + 7)),memdev=m$i"
                done ;;
        *) echo "vm-check: unknown shape $shape"; return 1 ;;
    esac
    # numa_balancing=disable: the kernel's automatic NUMA balancing migrates a thread's pages
    # toward it after a second or so of scanning, which under TCG's slow clock made every
    # runtime look placed (libgomp 89 of 90 stack pages, libomp-lite before issue 47 all of
    # them): the check is of where the runtime put them.
    # Boot faster under TCG: no delay-loop calibration or TSC checks per CPU (64 of them, each
    # slow under emulation), no speculation mitigations.
    local fast="lpj=4000000 tsc=reliable no_timer_check mitigations=off"
    local log=$work/$shape.log start=$SECONDS
    # shellcheck disable=SC2086
    timeout "${VM_TIMEOUT:-300}" "$qemu" -accel tcg -cpu max -m $mem -smp $smp $numa \
        -kernel "$kernel" -initrd "$work/initrd.gz" -nographic -no-reboot \
        -append "console=ttyS0 quiet panic=-1 numa_balancing=disable $fast VM_SHAPE=$shape VM_SET=$set VM_PLACE_MIN=$min \
VM_PLACE_BIND=${VM_PLACE_BIND:-spread} VM_COMPARE=${VM_COMPARE:-0}" \
        < /dev/null > "$log" 2>&1
    local rc=$?
    tr -d '\r' < "$log" | grep -E '^(VM|placement|partition|member +[0-9]+ |[a-z_]+: FAIL)' \
        | grep -v '^member' | sed "s/^/[$shape] /"
    echo "[$shape] $((SECONDS - start)) s, qemu status $rc"
    if ! tr -d '\r' < "$log" | grep -q 'VMINFO shape='; then
        echo "[$shape] SKIP: the guest did not reach user space in ${VM_TIMEOUT:-300} s (a host too busy for TCG?)"
        return 77
    fi
    if ! tr -d '\r' < "$log" | grep -q '^VMRESULT pass=[0-9]* fail=0$'; then
        echo "[$shape] FAIL (no clean VMRESULT; the last lines of the console:)"
        tr -d '\r' < "$log" | tail -n 20
        return 1
    fi
}
# make check's bound: a shape is not started once VM_BUDGET seconds (default 540) have passed;
# each one that is skipped says so, and the test is skipped only if no shape ran at all.
status=0 ran=0
for s in $shapes; do
    if [ $SECONDS -ge "${VM_BUDGET:-540}" ]; then
        echo "[$s] SKIP: not started, ${VM_BUDGET:-540} s budget spent (VM_BUDGET)"
        continue
    fi
    boot "$s"
    case $? in
        0) ran=$((ran + 1)) ;;
        77) ;;
        *) ran=$((ran + 1)); status=1 ;;
    esac
done
[ $ran = 0 ] && [ $status = 0 ] && skip "no guest shape could run"
exit $status

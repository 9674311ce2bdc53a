#!/usr/bin/env bash
# The "fresh" test: proves that the README's two commands work on a freshly installed Debian 12.
#
# It makes a minimal Debian 12 root with debootstrap (variant minbase: only the Essential packages
# and apt) from the Debian mirror this machine's apt sources name, copies a clean export of the
# checkout into it (`git archive` of HEAD, or of the tracked files as they are when the tree has
# uncommitted changes; never untracked files or build outputs), and runs, chrooted into it, as a
# new user would:  ./scripts/demo.sh  then  ./scripts/test.sh.  Any failure fails the test.
#
#   usage: tests/fresh/fresh_test.sh [SOURCE_DIR]     (ctest runs it as the test `fresh`)
#
# Needs root, debootstrap (installed with apt-get when missing), mount and PID namespaces, and the
# mirror over the network.
# When one is missing it exits 77 (ctest: skipped), or 1 when CI=true (CI must not skip it).
#
# What is cached between runs, under $SPMDC_FRESH_CACHE (default /var/cache/spmdc-fresh), keyed by
# suite + variant + architecture + mirror: the debootstrap download (`debootstrap --make-tarball`;
# every run still unpacks and installs a new root from it) and the .deb files apt downloads inside
# the root (every run still installs them by name with apt-get; the cache is hard-linked into the
# root and new files back, so that parallel runs never share apt's lock). The root's compiler runs through
# ccache with this machine's cache directory bind-mounted, compiler_check=content (an identical
# g++ hits the cache whatever its mtime): a hit still preprocesses or checks the include manifest,
# so it cannot hide a missing header or package.
#
# Mounts (/proc, /sys, /dev, /dev/shm, the ccache directory) are made in a private mount namespace with its
# own PID namespace, so they vanish with it even if this script is killed; the EXIT trap kills the
# namespace, checks that nothing is left mounted under the root and removes it.
set -euo pipefail

readonly SKIP=77
self=$(readlink -f "$0")
readonly SUITE=bookworm            # Debian 12
readonly VARIANT=minbase
readonly SRC_IN_ROOT=/work/spmdc   # where the export lies inside the root

# ---------------------------------------------------------------------------------------------
# Inner mode: run by the outer mode inside `unshare` (new mount + PID namespace). Mounts what a
# booted machine has, then runs the README's two commands chrooted.
if [ "${1:-}" = --in-namespace ]; then
  root=$2 ccache_dir=$3
  mount --make-rprivate /
  # The root a mount point of its own, as / is on a booted machine: tools that remount / in a
  # namespace they make (`ip -n NS ...`, `ip netns exec`: mount --make-rslave /) fail on a
  # chroot whose / is a plain directory.
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount -t sysfs -o ro sysfs "$root/sys"
  mount --bind /dev "$root/dev"
  # A tmpfs of its own: python's multiprocessing (lit) needs POSIX shared memory.
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
  mkdir -p "$root/var/cache/ccache"
  mount --bind "$ccache_dir" "$root/var/cache/ccache"
  # The environment of a root login on a new machine (no locale configured), plus: the marker
  # that keeps the inner test run from nesting this test, CI as the outer run has it, and ccache
  # settings (the host's size limits, so that the root's ccache never trims the shared cache
  # below what the host allows).
  # shellcheck disable=SC2016  # the script below expands in the root, not here
  exec chroot "$root" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
    SPMDC_FRESH_INNER=1 CI="${CI:-}" \
    CCACHE_DIR=/var/cache/ccache CCACHE_COMPILERCHECK=content CCACHE_BASEDIR=$SRC_IN_ROOT \
    CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="$CCACHE_MAXSIZE" CCACHE_MAXFILES="$CCACHE_MAXFILES" \
    /bin/bash -c '
      set -euo pipefail
      cd "$1"
      t0=$(date +%s)
      echo "fresh: [root] ./scripts/demo.sh"
      ./scripts/demo.sh
      t1=$(date +%s)
      echo "fresh: [root] ./scripts/demo.sh passed in $((t1 - t0)) s"
      echo "fresh: [root] ./scripts/test.sh"
      ./scripts/test.sh
      echo "fresh: [root] ./scripts/test.sh passed in $(($(date +%s) - t1)) s"' bash "$SRC_IN_ROOT"
fi

# ---------------------------------------------------------------------------------------------
# Outer mode.
if [ -n "${SPMDC_FRESH_INNER:-}" ]; then
  echo "fresh: already inside a fresh root (SPMDC_FRESH_INNER is set): not nesting" >&2
  exit $SKIP
fi

cannot_run() {
  echo "fresh: cannot run: $*" >&2
  if [ "${CI:-}" = true ]; then
    echo "fresh: CI=true: a CI run must run this test, so this is a failure" >&2
    exit 1
  fi
  echo "fresh: skipped (set CI=true to make this a failure)" >&2
  exit $SKIP
}

src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
[ "$(id -u)" -eq 0 ] || cannot_run "needs root (debootstrap, chroot, mount)"
if ! { command -v git >/dev/null && git -C "$src" -c safe.directory="$src" rev-parse HEAD >/dev/null 2>&1; }; then
  cannot_run "$src is not a git checkout (the test exports its tracked files)"
fi
unshare --mount --pid --fork true 2>/dev/null || cannot_run "cannot create mount/PID namespaces"
if ! command -v debootstrap >/dev/null; then
  echo "fresh: installing debootstrap"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends debootstrap; } >&2 || cannot_run "cannot install debootstrap"
fi

# The Debian mirror (and security mirror) this machine's apt sources name: deb822 stanzas in
# sources.list.d/*.sources (URIs: / Suites:), or one-line `deb URI SUITE ...` entries. Prints
# "URI SUITE" pairs.
apt_sources() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk '
      function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
                           for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
                         types = ""; enabled = ""; nu = 0; ns = 0 }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = tolower($1); sub(/:$/, "", key); $1 = "" }
      key == "types"   { types = $0 }
      key == "enabled" { enabled = tolower($2) }
      key == "uris"    { nu = split(substr($0, 2), u, " ") }
      key == "suites"  { ns = split(substr($0, 2), s, " ") }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$f" ] || continue
    # `deb [options] URI SUITE COMPONENTS...`
    sed -E -n 's/^[ \t]*deb[ \t]+(\[[^]]*\][ \t]+)?([^ \t]+)[ \t]+([^ \t]+).*/\2 \3/p' "$f"
  done
}
sources=$(apt_sources)
mirror=${SPMDC_FRESH_MIRROR:-$(awk -v s=$SUITE '$2 == s { print $1; exit }' <<<"$sources")}
if [ -z "$mirror" ]; then  # a host on another Debian release: its main archive serves bookworm too
  mirror=$(awk '$1 ~ /\/debian\/?$/ && $2 !~ /-/ { print $1; exit }' <<<"$sources")
fi
[ -n "$mirror" ] || cannot_run "no Debian mirror in /etc/apt/sources.list{,.d} (set SPMDC_FRESH_MIRROR)"
mirror=${mirror%/}
# The network: apt needs the mirror even when the base system is cached (debootstrap brings wget).
if ! wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$SUITE/Release"; then
  cannot_run "cannot reach $mirror/dists/$SUITE/Release (no network?)"
fi
security=$(awk -v s=$SUITE-security '$2 == s { print $1; exit }' <<<"$sources")
security=${security%/}
arch=$(dpkg --print-architecture)

cache=${SPMDC_FRESH_CACHE:-/var/cache/spmdc-fresh}
key=$(printf '%s %s %s %s' "$SUITE" "$VARIANT" "$arch" "$mirror" | sha256sum | cut -c1-12)
tarball=$cache/debootstrap-$SUITE-$VARIANT-$arch-$key.tar.gz
apt_archives=$cache/apt-archives-$SUITE-$arch-$key
ccache_dir=${SPMDC_FRESH_CCACHE_DIR:-$(ccache -k cache_dir 2>/dev/null || true)}
[ -n "$ccache_dir" ] || ccache_dir=$cache/ccache    # no ccache on the host: a cache of its own
mkdir -p "$cache" "$apt_archives" "$ccache_dir"
CCACHE_MAXSIZE=$(ccache -k max_size 2>/dev/null || echo 20G)
CCACHE_MAXFILES=$(ccache -k max_files 2>/dev/null || echo 0)
export CCACHE_MAXSIZE CCACHE_MAXFILES

mounts_under() { awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo; }
# Roots left by runs that were SIGKILLed (a ctest timeout), so their trap never ran: their
# namespace died with them (no mounts), only the files remain.
for old in /var/tmp/spmdc-fresh.*; do
  [ -f "$old/pid" ] || continue
  kill -0 "$(cat "$old/pid")" 2>/dev/null && continue
  [ -z "$(mounts_under "$old")" ] && rm -rf --one-file-system "$old"
done
work=$(mktemp -d /var/tmp/spmdc-fresh.XXXXXX)
echo $$ >"$work/pid"
root=$work/root
ns_pid=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$ns_pid" ] && kill -0 "$ns_pid" 2>/dev/null; then
    # SIGKILL: unshare --fork ignores SIGTERM and SIGINT while it waits. With --kill-child its
    # death kills the namespace's init, and with it every process of the namespace; its mounts
    # go with the last of them.
    kill -KILL "$ns_pid" 2>/dev/null || true
    wait "$ns_pid" 2>/dev/null || true
  fi
  local m tries=0
  while [ -n "$(mounts_under "$root")" ] && [ $tries -lt 10 ]; do  # defence in depth
    for m in $(mounts_under "$root" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m" || true; done
    tries=$((tries + 1)); sleep 1
  done
  if [ -n "$(mounts_under "$root")" ]; then
    echo "fresh: still mounted under $root, not removing $work:" >&2; mounts_under "$root" >&2
    exit 1
  fi
  rm -rf --one-file-system "$work"
  exit $rc
}
trap cleanup EXIT
trap 'echo "fresh: interrupted (SIGINT)" >&2; exit 130' INT
trap 'echo "fresh: interrupted (SIGTERM)" >&2; exit 143' TERM
trap 'echo "fresh: interrupted (SIGHUP)" >&2; exit 129' HUP

now() { date +%s; }
t_start=$(now)
echo "fresh: Debian $SUITE ($VARIANT, $arch) from $mirror${security:+, security from $security}"
echo "fresh: root in $root; caches in $cache; ccache in $ccache_dir"

# 1. The root. `--make-tarball` downloads what debootstrap installs into a tarball (once per key;
# under a lock, as parallel runs share it); `--unpack-tarball` installs a new root from it.
include=""
case $mirror in https:*) include=--include=ca-certificates ;; esac  # apt needs them for https
(
  flock 9
  if [ ! -s "$tarball" ]; then
    echo "fresh: downloading the $SUITE base system (debootstrap --make-tarball)"
    rm -rf "$work/download"
    debootstrap --variant=$VARIANT --arch="$arch" $include --make-tarball="$tarball.part" \
      $SUITE "$work/download" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      { tail -30 "$work/debootstrap.log" >&2; rm -f "$tarball.part"; exit 1; }
    mv "$tarball.part" "$tarball"
    rm -rf "$work/download"
  fi
) 9>"$cache/lock" || { echo "fresh: debootstrap --make-tarball failed" >&2; exit 1; }
t_download=$(now)
echo "fresh: installing a new root (debootstrap --unpack-tarball)"
debootstrap --variant=$VARIANT --arch="$arch" $include --unpack-tarball="$tarball" \
  $SUITE "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -30 "$work/debootstrap.log" >&2; echo "fresh: debootstrap failed" >&2; exit 1; }
# The apt sources of a new Debian 12 machine: the release, its updates and security updates.
{
  echo "deb $mirror $SUITE main"
  echo "deb $mirror $SUITE-updates main"
  [ -z "$security" ] || echo "deb $security $SUITE-security main"
} >"$root/etc/apt/sources.list"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# /etc/hosts as the Debian installer writes it (debootstrap writes none): without the host name
# in it, every lookup of it (Open MPI's daemons make many) waits on DNS.
host=$(uname -n)
{
  echo "127.0.0.1	localhost"
  echo "127.0.1.1	$host"
  echo "::1		localhost ip6-localhost ip6-loopback"
  echo "ff02::1		ip6-allnodes"
  echo "ff02::2		ip6-allrouters"
} >"$root/etc/hosts"
t_root=$(now)
echo "fresh: root ready in $((t_root - t_start)) s (download $((t_download - t_start)) s)"

# 2. The checkout: tracked files only, as they are now (`git stash create` makes a commit of the
# working tree without touching it, and prints nothing when the tree is clean).
mkdir -p "$root$SRC_IN_ROOT"
g() { git -C "$src" -c safe.directory="$src" -c user.name=fresh -c user.email=fresh@localhost "$@"; }
rev=$(g stash create)
if [ -n "$rev" ]; then echo "fresh: exporting the tracked files (uncommitted changes included)"
else rev=HEAD; echo "fresh: exporting HEAD ($(g rev-parse --short HEAD))"; fi
g archive --format=tar "$rev" | tar -x -C "$root$SRC_IN_ROOT"

# 3. The README's two commands, in the root, with the .deb files earlier runs downloaded.
copy_debs() {  # FROM TO: hard links where possible (same file system), copies elsewhere
  find "$1" -maxdepth 1 -name '*.deb' -exec cp -n -l -t "$2" {} + 2>/dev/null ||
    find "$1" -maxdepth 1 -name '*.deb' -exec cp -n -t "$2" {} +
}
copy_debs "$apt_archives" "$root/var/cache/apt/archives"
unshare --mount --pid --fork --kill-child "$self" --in-namespace "$root" "$ccache_dir" &
ns_pid=$!
rc=0
wait "$ns_pid" || rc=$?
ns_pid=""
( flock 9; copy_debs "$root/var/cache/apt/archives" "$apt_archives" ) 9>"$cache/lock" || true
t_end=$(now)
if [ $rc -ne 0 ]; then
  echo "fresh: FAILED (exit $rc) after $((t_end - t_start)) s" >&2
  exit 1
fi
echo "fresh: passed in $((t_end - t_start)) s (root $((t_root - t_start)) s," \
     "demo + tests $((t_end - t_root)) s)"

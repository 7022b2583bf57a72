#!/usr/bin/env bash
# Build the Dockerfile and smoke-test the image (issue 14 item 10); .ci/run runs it after `make check`.
#   1. tools: podman, runc, mmdebstrap from Debian packages (apt-get, only if missing);
#   2. base: FROM debian:bookworm-slim is pulled when a registry answers, else made from Debian packages
#      (mmdebstrap minbase with the slim image's sources and dpkg excludes, then `podman import`);
#   3. build: `podman build -t readwell .`, the README's `docker build`, plus what this machine needs (below);
#   4. smoke: inside the image, `readwell` (its CMD: --help), `readwell extract --render` of a page served
#      from 127.0.0.1 whose article arrives by script after 800 ms (CJK line included), the README's
#      `render URL -o /out --screenshots` into a mounted directory, and the CJK font files present;
#   5. cleanup: everything lives in one scratch directory (storage, run state, volumes) that is removed at
#      exit, so repeated runs do not fill the disk and the machine's own podman storage is not touched.
# Prints each phase's seconds and the image size. Runs as root (re-runs itself with sudo otherwise).
# Environment: READWELL_CI_STORAGE_DRIVER (overlay|vfs; default overlay when the kernel mounts it, else vfs),
# READWELL_CI_TMPFS=0 (scratch on disk even with 12 GB of memory available), READWELL_CI_CA_BUNDLE (default
# /etc/ssl/certs/ca-certificates.crt), READWELL_CI_KEEP=1 keeps the scratch (and its tmpfs mounted).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then exec sudo -E bash "$0" "$@"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive

say() { echo "container_smoke: $*"; }
fail() {
  echo "container_smoke: FAILED: $*" >&2
  exit 1
}

T0=$SECONDS
PHASE_NAMES=()
PHASE_SECS=()
PHASE_START=$SECONDS
phase() { # phase NAME: start timing NAME (ends the previous phase)
  if [ -n "${PHASE_NAME:-}" ]; then
    PHASE_NAMES+=("$PHASE_NAME")
    PHASE_SECS+=($((SECONDS - PHASE_START)))
    say "phase $PHASE_NAME: $((SECONDS - PHASE_START)) s"
  fi
  PHASE_NAME=$1
  PHASE_START=$SECONDS
  [ "$1" = "end" ] || say "phase $1 ..."
}

# 1. Tools. runc, not crun: crun 1.8 refuses this machine's hybrid cgroup layout ("cgroups in hybrid mode not
#    supported"); runc runs there.
phase tools
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  apt-get -o Acquire::Retries=3 update -qq
  apt-get -o Acquire::Retries=3 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
say "$(podman --version), $(runc --version | head -1), mmdebstrap $(mmdebstrap --version | awk '{print $2}')"

# Everything podman and mmdebstrap write goes under WORK: storage, run state, volumes, events, temporary
# files. WORK is a tmpfs when the machine has the memory to spare (3.0 GB used at the peak): unpacking
# 1.4 GB of Debian packages and deleting it all afterwards is I/O-bound on a shared disk.
WORK=$(mktemp -d /var/tmp/readwell-container.XXXXXX)
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
WORK_FS=disk
if [ "${READWELL_CI_TMPFS:-auto}" != "0" ] && [ "${avail_kb:-0}" -ge $((12 * 1024 * 1024)) ] \
  && mount -t tmpfs -o size=8g,mode=700 tmpfs "$WORK"; then
  WORK_FS=tmpfs
fi
SERVER_PID=""
remove_scratch() { # idempotent: also the EXIT trap's job when a step fails
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  SERVER_PID=""
  if [ ! -d "$WORK" ]; then return 0; fi
  if [ "${READWELL_CI_KEEP:-0}" = "1" ]; then
    say "kept $WORK (READWELL_CI_KEEP=1; CONTAINERS_STORAGE_CONF=$WORK/storage.conf)"
    READWELL_CI_KEEP=2 # say it once
    return 0
  fi
  if [ "${READWELL_CI_KEEP:-0}" = "2" ]; then return 0; fi
  "${PODMAN[@]}" rm --all --force >/dev/null 2>&1 || true
  "${PODMAN[@]}" rmi --all --force >/dev/null 2>&1 || true
  # layers still mounted (an interrupted build) must be unmounted before their directory goes
  { findmnt -rn -o TARGET | grep -E "^$WORK(/|\$)" || true; } | sort -r | while read -r m; do
    umount -l "$m" || true
  done
  rm -rf "$WORK"
}
PODMAN=(true)
trap remove_scratch EXIT

# Storage driver: overlay (layers share files; the kernel's overlayfs) is several times faster than vfs (a
# full copy of the file system per layer) and is used when the kernel mounts it here; else vfs.
DRIVER=${READWELL_CI_STORAGE_DRIVER:-}
if [ -z "$DRIVER" ]; then
  DRIVER=vfs
  probe=$WORK/overlay-probe
  mkdir -p "$probe"/{lower,upper,work,merged}
  if mount -t overlay overlay -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" \
    "$probe/merged" 2>/dev/null; then
    umount "$probe/merged"
    DRIVER=overlay
  fi
  rm -rf "$probe"
fi
# Podman's defaults for root raise the open-files and process limits (1048576, 4194304), which needs
# CAP_SYS_RESOURCE; where the caller lacks it (this machine's sandbox) every container fails to start
# ("setrlimit RLIMIT_NOFILE: Operation not permitted"). Containers get the caller's own hard limits instead,
# processes capped at 32768: conmon, which starts the runtime, runs with that limit here.
NOFILE=$(ulimit -Hn)
NPROC=$(ulimit -Hu)
if [ "$NOFILE" = "unlimited" ]; then NOFILE=1048576; fi
if [ "$NPROC" = "unlimited" ] || [ "$NPROC" -gt 32768 ]; then NPROC=32768; fi
ULIMITS=(--ulimit "nofile=$NOFILE:$NOFILE" --ulimit "nproc=$NPROC:$NPROC")
export CONTAINERS_STORAGE_CONF=$WORK/storage.conf CONTAINERS_CONF=$WORK/containers.conf
printf '[storage]\ndriver = "%s"\ngraphroot = "%s/storage"\nrunroot = "%s/run"\n' "$DRIVER" "$WORK" "$WORK" \
  >"$CONTAINERS_STORAGE_CONF"
printf '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
  >"$CONTAINERS_CONF"
PODMAN=(podman --tmpdir "$WORK/tmp" --volumepath "$WORK/volumes")
say "scratch $WORK ($WORK_FS), storage driver $DRIVER, ulimits nofile=$NOFILE nproc=$NPROC"

# 2. Base image.
phase base
BASE=docker.io/library/debian:bookworm-slim
if curl -sS -m 10 -o /dev/null https://registry-1.docker.io/v2/ 2>/dev/null \
  && timeout 600 "${PODMAN[@]}" pull -q "$BASE" >/dev/null 2>&1; then
  say "pulled $BASE"
else
  # No registry: the same distribution from Debian packages. The slim image's sources (bookworm, -updates,
  # -security) and its dpkg excludes (no manuals, docs except copyright files, translations); apt retries
  # a failed download (here and in the Dockerfile's apt step) so that one network hiccup does not fail CI.
  say "no registry reachable: making $BASE with mmdebstrap"
  TMPDIR=$WORK timeout 900 mmdebstrap --quiet --mode=root --variant=minbase --format=tar \
    --aptopt='Acquire::Retries "3"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    bookworm "$WORK/base.tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  "${PODMAN[@]}" import -q "$WORK/base.tar" "$BASE" >/dev/null
  rm -f "$WORK/base.tar"
fi

# 3. Build, as README "Container" says (`docker build -t readwell .`), with: --pull=never (the base is
#    local); --network host (no bridge network or iptables needed for apt and pip); the ulimits above; and the
#    optional `cacert` secret (Dockerfile): this machine reaches PyPI through a TLS-intercepting proxy that
#    only the host's CA bundle trusts.
phase build
CA=${READWELL_CI_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
SECRET=()
if [ -s "$CA" ]; then SECRET=(--secret "id=cacert,src=$CA"); fi
IMAGE=localhost/readwell:latest
start=$SECONDS
annotate() { # the build's output to build.log; its steps, downloads and installs on the terminal, timed
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$WORK/build.log"
    case $line in
      STEP* | "Successfully installed"* | Fetched* | COMMIT*)
        printf '  [%4d s] %s\n' $((SECONDS - start)) "${line:0:120}"
        ;;
    esac
  done
}
# timeout: a hang guard (a stalled mirror or index), far above the ~2 minutes the build takes here
BUILD=(build --pull=never --network host "${ULIMITS[@]}" "${SECRET[@]}" -t "$IMAGE" .)
if ! timeout 1800 "${PODMAN[@]}" "${BUILD[@]}" 2>&1 | annotate; then
  tail -n 60 "$WORK/build.log" >&2
  fail "podman build (the log's end above)"
fi
size=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")
say "image $IMAGE: $((size / 1000000)) MB"

# 4. Smoke test. A page on 127.0.0.1 (host network) whose article arrives by script after 800 ms: the text
#    can only come from Chromium running the page's script inside the container.
phase smoke
SITE=$WORK/site
mkdir -p "$SITE"
cat >"$SITE/article.html" <<'EOF'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Smoke test</title></head>
<body><nav><a href="/">Home</a> <a href="/news">News</a></nav><div id="app">Loading...</div>
<script>setTimeout(() => { document.getElementById('app').innerHTML = '<article><h1>River survey</h1>'
+ '<p>The survey team walked the river from the spring to the estuary and noted how the banks changed.</p>'
+ '<p>Volunteers measured the water every month, so that later visits can compare the seasons.</p>'
+ '<p>川の調査は春から秋まで続いた。 SMOKE-MARKER arrived by script.</p></article>';
}, 800);</script>
</body></html>
EOF
python3 - "$SITE" "$WORK/port" 2>"$WORK/server.log" <<'EOF' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(sys.argv[2], "w") as f:
    f.write(str(server.server_port))
server.serve_forever()
EOF
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
[ -s "$WORK/port" ] || fail "the page server did not start"
URL="http://127.0.0.1:$(cat "$WORK/port")/article.html"
RUN=("${PODMAN[@]}" run --rm "${ULIMITS[@]}")

out=$("${RUN[@]}" --network none "$IMAGE") || fail "readwell --help (the image's CMD) exited $?"
grep -q '^usage: readwell' <<<"$out" || fail "readwell --help printed: $out"
say "ok: readwell --help"

out=$(timeout 300 "${RUN[@]}" --network host "$IMAGE" extract --render "$URL" --format markdown) \
  || fail "readwell extract --render exited $?"
echo "$out" | sed 's/^/    /'
grep -q 'SMOKE-MARKER arrived by script' <<<"$out" || fail "the scripted article is missing"
grep -q '川の調査は春から秋まで続いた' <<<"$out" || fail "the CJK line is missing"
grep -q 'Loading' <<<"$out" && fail "the placeholder was returned, not the article"
say "ok: extract --render $URL"

# README's third command: the image runs as uid 1000 (user readwell), so /out is a directory it can write.
install -d -o 1000 -g 1000 "$WORK/out"
timeout 300 "${RUN[@]}" --network host -v "$WORK/out:/out" "$IMAGE" render "$URL" -o /out --screenshots \
  || fail "readwell render -o /out --screenshots exited $?"
for ext in json md png; do
  ls "$WORK/out/"*."$ext" >/dev/null 2>&1 || fail "render wrote no .$ext file: $(ls "$WORK/out")"
done
grep -q 'SMOKE-MARKER' "$WORK/out/"*.md || fail "render's Markdown lacks the article"
say "ok: render -o /out --screenshots ($(ls "$WORK/out" | tr '\n' ' '))"

"${RUN[@]}" --network none --entrypoint sh "$IMAGE" -c 'ls /usr/share/fonts/opentype/noto/NotoSansCJK-*' \
  >/dev/null || fail "no Noto CJK fonts in the image"
say "ok: Noto CJK fonts present"
"${RUN[@]}" --network none --entrypoint sh "$IMAGE" -c 'test ! -e /run/secrets/cacert' \
  || fail "the build secret is in the image"
say "ok: the build secret is not in the image"

# 5. Cleanup and the summary.
phase cleanup
remove_scratch
phase end
summary=""
for i in "${!PHASE_NAMES[@]}"; do summary+="${PHASE_NAMES[$i]} ${PHASE_SECS[$i]} s, "; done
say "passed in $((SECONDS - T0)) s (${summary%, }); image $((size / 1000000)) MB;" \
  "storage driver $DRIVER on $WORK_FS"

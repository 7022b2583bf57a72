# Readwell render mode in a container: Debian's Chromium, fonts for Latin, CJK and most other scripts, and
# readwell[render] in a virtual environment. Build and run (the same commands as README "Container"):
#   docker build -t readwell .
#   docker run --rm readwell extract --render https://example.org/ --format markdown
#   docker run --rm -v "$PWD/out:/out" readwell render URL... -o /out --screenshots
#
# Built and smoke-tested on this project's machine (2026-11-30) without a container registry: podman 4.3.1
# and buildah 1.28.2 install from Debian bookworm packages; the base image was made from Debian packages
# (`mmdebstrap --variant=minbase --format=tar bookworm rootfs.tar`, then `podman import rootfs.tar
# docker.io/library/debian:bookworm-slim`), and `buildah bud --isolation chroot --storage-driver vfs
# --pull-never --network host -t readwell .` ran every step. One difference from this file: the machine
# reaches PyPI only through a TLS-intercepting proxy whose CA the container does not trust (pip:
# CERTIFICATE_VERIFY_FAILED), so the pip step installed wheels built on the host (`pip wheel -w wheels
# '.[render]'`, then `pip install --no-index --find-links /wheels 'readwell[render]'`). Smoke test, inside
# the image: `readwell extract --render http://127.0.0.1:PORT/page.html --format markdown` gave the
# article's text.
FROM debian:bookworm-slim

# chromium: the browser render mode drives (Playwright's own download is never used);
# fonts-noto-core / fonts-noto-cjk / fonts-liberation2: text must have glyphs, or boxes and line heights
# (hence blocks and prominence) differ from a desktop browser's; python3-venv: an isolated pip environment;
# libatomic1: Playwright's bundled Node driver links it (without it the driver exits at once and render
# mode fails with "Connection closed while reading from the driver": found by the smoke test)
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium fonts-noto-core fonts-noto-cjk fonts-liberation2 python3 python3-venv ca-certificates \
      libatomic1 \
 && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md /src/
COPY build_scripts/constraints.txt /src/build_scripts/constraints.txt
COPY py_core /src/py_core
COPY extension/snapshot.js /src/extension/snapshot.js
RUN python3 -m venv /opt/readwell \
 && /opt/readwell/bin/pip install --no-cache-dir -c /src/build_scripts/constraints.txt '/src[render]' \
 && useradd --create-home --uid 1000 readwell \
 && mkdir -p /cache /out && chown readwell /cache /out

ENV PATH=/opt/readwell/bin:$PATH \
    READWELL_CHROMIUM=/usr/bin/chromium \
    READWELL_CACHE_DIR=/cache
USER readwell
VOLUME ["/cache"]
ENTRYPOINT ["readwell"]
CMD ["--help"]

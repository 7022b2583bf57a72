# Readwell render mode in a container: Debian's Chromium, fonts for Latin, CJK and most other scripts, and
# readwell[render] in a virtual environment. Build and run (the same commands as README "Container"; Docker
# needs BuildKit, its default builder since Docker 23, for the RUN --mount below):
#   docker build -t readwell .
#   docker run --rm readwell extract --render https://example.org/ --format markdown
#   docker run --rm -v "$PWD/out:/out" readwell render URL... -o /out --screenshots
# Behind a TLS-intercepting proxy, add `--secret id=cacert,src=/etc/ssl/certs/ca-certificates.crt` (below).
#
# CI builds this file unchanged and smoke-tests the image (build_scripts/container_smoke.sh, after
# `make check`): podman 4.3 from Debian packages, the base image pulled or, with no registry reachable, made
# from Debian packages with mmdebstrap; `podman build -t readwell .` with the `cacert` secret; then, inside the
# image, `readwell --help`, `extract --render` and `render -o /out --screenshots` of a page on 127.0.0.1.
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

# Layers from the least to the most often changed, so that an edit to the code rebuilds only the last one:
# Debian packages; then the venv with readwell's dependencies (read from pyproject.toml's `dependencies` and
# `render` extra, versions from constraints.txt); then the code, installed without network.
# The optional build secret `cacert` is for builds behind a TLS-intercepting proxy: pass the CA bundle that
# trusts it (`--secret id=cacert,src=/etc/ssl/certs/ca-certificates.crt`) and pip verifies PyPI with it.
# It is not secret; a secret mount lends a file to one RUN step without storing it in any layer. Without it
# pip uses its own CA bundle, as usual.
COPY pyproject.toml /src/
COPY build_scripts/constraints.txt /src/build_scripts/constraints.txt
RUN --mount=type=secret,id=cacert \
    if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi \
 && python3 -c 'import tomllib; p = tomllib.load(open("/src/pyproject.toml", "rb"))["project"]; \
print(*p["dependencies"], *p["optional-dependencies"]["render"], sep="\n")' > /src/requirements.txt \
 && python3 -m venv /opt/readwell \
 && /opt/readwell/bin/pip install --no-cache-dir -c /src/build_scripts/constraints.txt \
      -r /src/requirements.txt 'setuptools>=68' wheel \
 && useradd --create-home --uid 1000 readwell \
 && mkdir -p /cache /out && chown readwell /cache /out

COPY README.md /src/
COPY py_core /src/py_core
COPY extension/snapshot.js /src/extension/snapshot.js
# --no-deps --no-build-isolation: the dependencies and setuptools are in the venv already (no network here);
# pip check fails the build if pyproject.toml asks for something the layer above did not install
RUN /opt/readwell/bin/pip install --no-cache-dir --no-deps --no-build-isolation /src \
 && /opt/readwell/bin/pip check

ENV PATH=/opt/readwell/bin:$PATH \
    READWELL_CHROMIUM=/usr/bin/chromium \
    READWELL_CACHE_DIR=/cache
USER readwell
VOLUME ["/cache"]
ENTRYPOINT ["readwell"]
CMD ["--help"]

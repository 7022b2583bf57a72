# Readwell render mode in a container: Debian's Chromium, fonts for Latin, CJK and most other scripts, and
# readwell[render] in a virtual environment. Build and run (the same commands as README "Container"):
#   docker build -t readwell .
#   docker run --rm readwell extract --render https://example.org/ --format markdown
#   docker run --rm -v "$PWD/out:/out" readwell render URL... -o /out --screenshots
FROM debian:bookworm-slim

# chromium: the browser render mode drives (Playwright's own download is never used);
# fonts-noto-core / fonts-noto-cjk / fonts-liberation2: text must have glyphs, or boxes and line heights
# (hence blocks and prominence) differ from a desktop browser's; python3-venv: an isolated pip environment
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium fonts-noto-core fonts-noto-cjk fonts-liberation2 python3 python3-venv ca-certificates \
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

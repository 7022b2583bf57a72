# Readwell: the two commands a fresh machine needs are `make example` and `make check` (see README.md).
PYTHON ?= python3
EXAMPLE ?= fixtures/core--news-article-basic.html
EXAMPLE_URL ?= https://example.org/news/river-health

.PHONY: setup example build test check lint bench bench-blame bench-speed bench-scaling bench-article bench-parity bench-batch bench-engine bench-edge \
	bench-extension bench-serve bench-render train-root fixtures container clean

setup:            ## install everything (Debian chromium, pip -e .[test], npm ci); idempotent
	bash build_scripts/setup.sh

example: setup build ## the main job on the bundled example page: CLI (out/article.md, .json) and extension (out/extension/)
	mkdir -p out
	readwell extract $(EXAMPLE) --url $(EXAMPLE_URL) --format markdown --front-matter -o out/article.md
	readwell extract $(EXAMPLE) --url $(EXAMPLE_URL) --format json -o out/article.json
	@echo "wrote out/article.md and out/article.json"
	$(PYTHON) build_scripts/run_example.py $(EXAMPLE) --out out/extension

build:            ## the Pyodide engine bundle (build/engine/), the edge handler (build/edge/), the unpacked extension (build/extension/)
	node build_scripts/build_engine.mjs
	node build_scripts/build_edge.mjs
	node build_scripts/build_extension.mjs

bench-extension:  ## reader-view speed in headless Chromium (cold/warm, longest main-thread task) vs Readability.js
	$(PYTHON) build_scripts/bench_extension.py

test: lint        ## all tests (CPython, Pyodide in Node, Chromium)
	$(PYTHON) -m pytest -q

check: setup test ## install everything, then run all tests (what CI runs)

container:        ## build the Dockerfile with podman and smoke-test the image (root; CI runs it after check)
	bash build_scripts/container_smoke.sh

lint:             ## formatting, lint with line length enforced, types of py_core (mypy), ESLint
	$(PYTHON) -m ruff format --check py_core tests build_scripts
	$(PYTHON) -m ruff check py_core tests build_scripts
	$(PYTHON) -m mypy py_core
	npm run --silent lint

bench:            ## quality (F1/P/R per set beside the peers, macro-average), then speed side by side with the peers
	$(PYTHON) -m readwell.bench --set all --jobs 2
	$(MAKE) --no-print-directory bench-speed

bench-blame:      ## loss accounting: lost gold and kept boilerplate by stage and rule, over all sets
	mkdir -p out
	$(PYTHON) -m readwell.bench --blame --set all --jobs 2 --json out/blame.json

train-root:       ## retrain the learned root model (scikit-learn, the train extra): cross-validated figures, then root_model_data.py
	$(PYTHON) -m readwell.bench.train --jobs 2 --write

bench-speed:      ## ms/page: Readwell (html5lib, fast parser), trafilatura, readability-lxml, one interleaved run
	$(PYTHON) benchmarks/speed.py

bench-scaling:    ## time each hostile shape at n and 2n and print the ratio (linear ~ 2.0)
	$(PYTHON) benchmarks/scaling.py

bench-article:    ## the 20 MB article (70,000 paragraphs): CPU in total and per stage, fast parser (issue 11: <= 5 s)
	$(PYTHON) benchmarks/scaling.py --article --parser fast --clock cpu

bench-parity:     ## share of development-corpus pages with identical text from html5lib and the fast parser
	$(PYTHON) benchmarks/parity.py

bench-batch:      ## readwell batch pages/s at -j 1/-j 2 vs trafilatura's parallel CLI, byte identity, RSS over 20,000 records
	$(PYTHON) benchmarks/batch.py

bench-render:     ## render mode over 200 fixture pages from 127.0.0.1: RSS of Chromium and Python over time, relaunches
	$(PYTHON) build_scripts/bench_render.py --pages 200 --jobs 2

bench-engine:     ## cold start, warm extraction and memory of the engine in Node
	node build_scripts/bench_engine.mjs

bench-edge:       ## edge handler in workerd, Deno and Node: bundle size, heap after load, cold and warm request times
	$(PYTHON) benchmarks/edge.py

bench-serve:      ## load test of `readwell serve -j 2` on 127.0.0.1: 10,000 requests, req/s, p50/p99, errors, RSS
	$(PYTHON) build_scripts/bench_serve.py --requests 10000 --jobs 2

fixtures:         ## regenerate the expected .json/.md beside each fixture (review the diff!)
	$(PYTHON) tests/update_fixtures.py

clean:
	rm -rf build out

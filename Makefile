# reconcile-shadow: the targets a person runs. `make run` and `make test` work on a fresh clone.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin

# Every target runs with the Node .ci/node provides first on PATH: the machine's when it is at least the pinned
# release, else the pinned one it fetches into .cache/node/ and verifies (it prints which, once per make).
NODE_PATH_DIR := $(shell .ci/node)
ifneq ($(.SHELLSTATUS),0)
$(error .ci/node could not provide Node (see above))
endif
export PATH := $(if $(NODE_PATH_DIR),$(NODE_PATH_DIR):)$(PATH)
# npm ci again when the Node changes: engines and any native module are that Node's.
NODE_RUNNING := $(shell PATH='$(PATH)' node --version)

.PHONY: node-version install tools build run test typecheck lint unit verify e2e bench power fuzz soak clean

INSTALLED := node_modules/.installed-$(NODE_RUNNING)

$(INSTALLED): package.json package-lock.json
	rm -f node_modules/.installed*
	npm ci --no-audit --no-fund
	touch $@

install: $(INSTALLED)

# The programs the tests run beside Node (promtool, prometheus, kubectl, chromium, curl): installed from Debian's
# packages when missing and make runs as root, else make stops at once naming the command to run.
tools:
	@.ci/test-tools

build: install
	$(NODE_BIN)/tsc -p tsconfig.build.json

# The main job on its embedded default: a simulated HyperShift fleet, metrics on 127.0.0.1:9464.
run: build
	node dist/cli/main.js run

typecheck: install
	$(NODE_BIN)/tsc --noEmit -p tsconfig.json

# The layer rules and the code's style: eslint, then Prettier's check (an unformatted file fails; `npx prettier
# --write .` formats it).
lint: install
	$(NODE_BIN)/eslint .
	$(NODE_BIN)/prettier --check --log-level warn .

unit: install
	$(NODE_BIN)/mocha

# Type-check, lint, then every test; the last line is "N passed, N failed".
test: tools typecheck lint unit

verify: install
	node --import tsx cli/generate.ts --check

# The dashboards and alerts against a real Prometheus scraping the embedded default for a minute (not part of make
# test): every dashboard query evaluates, >= 90 % of panel targets return data, every rule is healthy.
e2e: install tools
	$(NODE_BIN)/mocha --no-config --import=tsx --timeout 0 --exit --reporter ./test/summary-reporter.cjs 'test/e2e/**/*.e2e.ts'

# Speed and memory targets (not part of make test): prints a table, writes bench/results.json.
bench: build
	node --expose-gc --import tsx bench/run.ts

# The verdict's power and false alarms on planted worlds at full size (200 objects, 7 days, 20 seeds; not part of
# make test, which runs the same claims on smaller worlds): writes bench/power.md.
power: install
	node --import tsx bench/power.ts --seeds 20 --power-seeds 10 --check-seeds 5

# The property tests of test/fuzz with 100,000 generated cases per property (make test runs 1,000).
fuzz: install
	FUZZ_RUNS=100000 $(NODE_BIN)/mocha --no-config --import=tsx --timeout 0 --exit --reporter ./test/summary-reporter.cjs 'test/fuzz/**/*.test.ts' test/collector/otlp/properties.test.ts test/collector/otlp/scan-json.test.ts

soak: install
	node --import tsx test/soak/run.ts

# The Node the other targets run with (test/ci/node.test.ts reads it).
node-version:
	@node --version

clean:
	rm -rf dist coverage test-output

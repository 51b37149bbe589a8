# clusterui — `make run` serves the dashboard, `make test` runs every test.
# Everything is installed into .venv from requirements*.txt; only Python >= 3.11 is needed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000

# Tests talk plain HTTP to the test client and servers they start.
TEST_ENV := HTTPS=0 SECRET_KEY=$${SECRET_KEY:-clusterui-tests-only-not-a-secret}

.PHONY: run test test-embedded test-main bench fuzz venv check-deploy clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit("clusterui needs Python >= 3.11, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

# Embedded mode: SQLite, in-process Celery worker + beat, in-memory channel layer.
# HOST=0.0.0.0 serves the room: the machine's addresses are allowed and carry the join links.
run: venv
	env -u REDIS_URL -u DATABASE_URL DEBUG=1 $(PY) manage.py migrate --noinput
	env -u REDIS_URL -u DATABASE_URL DEBUG=1 $(PY) manage.py load_demo
	env -u REDIS_URL -u DATABASE_URL DEBUG=1 $(PY) manage.py local_account
	env -u REDIS_URL -u DATABASE_URL DEBUG=1 $(PY) manage.py serve --host $(HOST) --port $(PORT)

# Two passes: the suite in the environment as given (CI sets REDIS_URL and DATABASE_URL for
# the distributed path), then the embedded-mode tests with no Redis and SQLite.
test: venv
	@test -x /usr/bin/chromium || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "note: Debian's /usr/bin/chromium is missing and cannot be installed here; browser tests will be skipped"
	$(TEST_ENV) $(PY) -m pytest -m "not embedded" $(PYTEST_ARGS)
	env -u REDIS_URL -u DATABASE_URL $(TEST_ENV) $(PY) -m pytest -m embedded $(PYTEST_ARGS)

# The "one truth" properties (a stored cluster moved in any increments = simulate --until; a
# preview = what the cluster then records) with a longer Hypothesis budget than `make test`.
FUZZ_EXAMPLES ?= 200
fuzz: venv
	CLUSTERUI_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(TEST_ENV) $(PY) -m pytest -q tests/scheduling/test_one_truth.py --hypothesis-show-statistics $(PYTEST_ARGS)

# The live load (scheduling/bench/live.py) runs embedded mode and distributed mode: the latter on
# this PostgreSQL database and Redis database (flushed first), both on loopback.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/clusterui_bench
BENCH_REDIS_URL    ?= redis://127.0.0.1:6379/12

bench: venv
	$(PY) -m scheduling.bench.scale --nodes 500 --pods 10000
	$(PY) -m scheduling.bench.scheduler
	$(PY) -m scheduling.bench.framework
	$(PY) -m scheduling.bench.board
	$(PY) -m scheduling.bench.update --nodes 1000 --pods 10000
	$(PY) -m scheduling.bench.machineset
	$(PY) -m scheduling.bench.interactive
	$(PY) -m scheduling.bench.preview
	$(PY) -m scheduling.bench.rewind
	$(PY) -m scheduling.bench.editors
	$(PY) -m scheduling.bench.live --database-url $(BENCH_DATABASE_URL) --redis-url $(BENCH_REDIS_URL)

# `manage.py check --deploy` with production settings.
check-deploy: venv
	DEBUG=0 HTTPS=1 REDIS_URL=redis://127.0.0.1:6379/0 SECRET_KEY=$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(50))') \
	  ALLOWED_HOSTS=clusterui.example.com $(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) var staticfiles

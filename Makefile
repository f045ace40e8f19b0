# psab — the two commands of the README:
#   make run    install into .venv (with bubblewrap where it can) and run the main job (the built-in agents on the public and held-out splits)
#   make test   install into .venv (with the system tools the tests need) and run every test
#
# Needs only python3 (>= 3.11, with venv) and make. PYTHON picks another interpreter.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.psab-installed

.PHONY: run test install system-deps toolbox check bench lint clean

# The main job: the built-in baselines through the agent runner on the public split, then on
# one held-out draw per family from a demo seed (a real round keeps its seed private and
# passes it as $$PSAB_SEED; the demo seed is guessable by design, hence --allow-weak-seed),
# then the study tier (every study, public and one held-out draw, the agents' toolbox in the
# sandbox), then one report over the four runs. Everything lands in
# runs/make-run-<UTC stamp>/: public/, heldout/, study-public/, study-heldout/ and report/
# (report.md, report.html, plots).
# system-deps first: a first run should be the sandboxed one (bwrap), not the relocated fallback;
# toolbox: the study tier shows every agent the field's libraries (2-3 min to build the first time).
run: $(STAMP) system-deps toolbox
	@out=runs/make-run-$$(date -u +%Y%m%dT%H%M%SZ); \
	$(BIN)/psab run --agent builtin:reference --agent builtin:mutant --split public --out $$out/public && \
	$(BIN)/psab run --agent builtin:reference --agent builtin:mutant --split heldout --seed demo-seed --allow-weak-seed --count 1 \
	    --out $$out/heldout && \
	$(BIN)/psab run --tier study --agent builtin:reference --agent builtin:mutant --split public --out $$out/study-public && \
	$(BIN)/psab run --tier study --agent builtin:reference --agent builtin:mutant --split heldout --seed demo-seed \
	    --allow-weak-seed --count 1 --out $$out/study-heldout && \
	$(BIN)/psab report $$out/public $$out/heldout $$out/study-public $$out/study-heldout --out $$out/report && \
	echo "report: $$out/report/report.html (Markdown: report.md)" && \
	echo "psab is installed in $(VENV): run '. $(VENV)/bin/activate' to use it here (e.g. psab list; psab qc $$out)"

# The suite runs on TEST_WORKERS processes (pytest-xdist), a test module per process at a time
# (--dist loadfile): a module's shared fixtures (the report tests' runs) are built once, and
# test_runner_builtins, which scans /proc for its hang agent's child after a run, never overlaps
# its other hang run. (loadgroup would be finer, but xdist 3.8 cannot group under pytest 9.)
# PSAB_THOROUGH=1 make test explores longer: 1000 examples per property test without its own
# count, and more generated cases (tests/conftest.py, budget()).
TEST_WORKERS ?= 2

test: $(STAMP) system-deps toolbox
	$(BIN)/ruff check psab tests benchmarks
	@# ANDES generates its model code once per machine (~30-45 s); paid here, not inside a test.
	$(BIN)/python -m psab.backends.andes_tds
	PSAB_STRICT=1 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $(STAMP)

# The agents' toolbox (psab/toolbox, docs/toolbox.md): a separate venv of the system python with
# the field's libraries at psab's pins, never psab. The first build takes 2-3 min (pip and ANDES's
# code generation); with the same pins and Python it is a no-op (under a second). tests/test_toolbox.py
# checks the built one.
toolbox: $(STAMP) system-deps
	$(BIN)/psab toolbox build

# bubblewrap gives the runner its namespace sandbox; installed where we can (root + apt), for
# make run and make test alike.
system-deps:
	@sh scripts/install-system-deps.sh

check: $(STAMP)
	$(BIN)/psab check

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check psab tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info

# dipmap — build, test, demo. See README.md.
#
#   make              build ./dipmap (installs missing Debian packages first)
#   make test         unit + CLI tests, ends with "N passed, N failed, N skipped"
#   make test-asan    the same suite under AddressSanitizer + UBSan
#   make test-llama LLAMA_SERVER=/path/to/llama-server
#                     the tests against a real llama-server (tests/llama/, README)
#   make demo         the built-in demo against the simulated server
#   make bench        benchmarks (numbers, never failures); see BENCHMARKS.md
#   make tokenizer-conformance  optional: ids vs Hugging Face tokenizers, 8 tokenizer.json families
#   make validate     the statistics' simulation study against serve-sim; see VALIDATION.md
#   make reference    docs/reference/*.md from the option tables (after changing an option)
#   make readme       the README and docs quotes of a run, regenerated (scripts/readme-quotes.sh)
#   make install PREFIX=/usr/local DESTDIR=   binary, data (share/dipmap), man pages, completions
#   make uninstall    the same variables: removes what install put there
#   make dist         dipmap-RELEASE.tar.gz (builds and passes make test outside git)
#   make deb          dipmap_VERSION-1_ARCH.deb, a Debian package (needs dpkg-dev)
#   make image        the container image (Containerfile; buildah, podman or docker)
#   make test-package the slow packaging tests (dist, deb, container); CI runs them
#   make deps         install the Debian packages dipmap needs
#   make format / format-check

VERSION := 0.1.0
# The release dipmap --version prints: in a release tarball (make dist) the .tarball-version
# it carries ("RELEASE COMMIT"); in a checkout git describe from the last vX.Y.Z tag
# (0.1.0, or 0.1.0-3-gabc1234 after it); else VERSION-dev.
TARBALL_VERSION := $(shell cat .tarball-version 2>/dev/null)
ifneq ($(TARBALL_VERSION),)
RELEASE := $(word 1,$(TARBALL_VERSION))
COMMIT := $(word 2,$(TARBALL_VERSION))
else
RELEASE := $(or $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//'),$(VERSION)-dev)
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
endif

PKGS := libcurl sqlite3 libpcre2-8 libcjson libmicrohttpd zlib libcrypto
# Debian packages by what needs them; each target installs only its own when they are missing
# (make: the build's; make demo: and gnuplot; make test, bench, validate: all), make deps all.
# Building: the compiler and the libraries' headers.
BUILD_DEB_PKGS := build-essential pkg-config libcurl4-openssl-dev libssl-dev libsqlite3-dev \
	libpcre2-dev libcjson-dev libmicrohttpd-dev zlib1g-dev ca-certificates
# The plots of reports and of the demo.
PLOT_DEB_PKGS := gnuplot-nox
# The tests: xmllint (JUnit, HTML), sqlite3 (stores), clang (fuzz build), clang-format, curl,
# procps, python3 with pandas (export) and jsonschema (export --format eee against Every Eval
# Ever's schemas), chromium (report.html rendered headless).
TEST_DEB_PKGS := libxml2-utils sqlite3 clang clang-format curl procps python3 chromium \
	python3-pandas python3-jsonschema
DEB_PKGS := $(BUILD_DEB_PKGS) $(PLOT_DEB_PKGS) $(TEST_DEB_PKGS)

HAVE_BUILD_DEPS := $(shell command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $(PKGS) && \
	echo yes)
HAVE_PLOT_DEPS := $(shell command -v gnuplot >/dev/null 2>&1 && echo yes)
HAVE_DEPS := $(if $(and $(HAVE_BUILD_DEPS),$(HAVE_PLOT_DEPS)),$(shell command -v xmllint \
	>/dev/null 2>&1 && command -v sqlite3 >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 \
	&& echo yes))

CC ?= cc
ifeq ($(CC),cc)
CC := gcc
endif
BUILD ?= build
SAN ?=
OPT ?= -O2
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla -Werror=unused-result -Wmissing-field-initializers
ifdef SAN
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(CSTD) $(OPT) -g $(WARN) $(SANFLAGS) $(PKG_CFLAGS) $(HARNESS_INC) -MMD -MP $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lm -lpthread
HARNESS_INC := -Iharness

# SKIP=harness/x.c leaves a file out (e.g. while a module is being written)
SRCS := $(filter-out $(SKIP),$(sort $(wildcard harness/*.c harness/*/*.c)))
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
# The library: every module but main.c and the commands. The one list the unit tests, the
# benchmarks and the fuzz targets link (no hand-kept subsets that drift from the code).
LIB_SRCS := $(filter-out harness/main.c harness/cmd/%.c,$(SRCS))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
# Each tests/fuzz/fuzz_NAME.c also builds (gcc, no libFuzzer) as a unit test that replays
# tests/fuzz/NAME/ and tests/fuzz/regressions/NAME/ (see tests/fuzz/replay_main.c).
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_REPLAY_BINS := $(FUZZ_NAMES:%=$(BUILD)/tests/unit/test_fuzz_%)
# The benchmarks' programs: built by `make test` too (never run there), so a change that breaks
# one fails the build instead of the next `make bench`
BENCH_BINS := $(addprefix $(BUILD)/bench/,bench_tokenizer bench_prompt bench_stats bench_store bench_split)
ifeq ($(BUILD),build)
BIN := dipmap
else
BIN := $(BUILD)/dipmap
endif

.PHONY: all build docs reference install uninstall dist deb image test-package deps deps-build deps-plot test test-build test-asan test-llama demo readme bench validate format format-check check-banned clean \
	bench-tokenizer tokenizer-conformance bench-prompt bench-stats fuzz fuzz-tokenizer fuzz-client fuzz-golden fuzz-haystack \
	fuzz-template fuzz-config fuzz-score

# A target whose packages are missing installs them and runs again, once (DEPS_TRIED stops a
# second round when they are still missing after the install: a failed apt-get, no sudo).
missing_deps = $(if $(DEPS_TRIED),@echo "dipmap: packages still missing after installing them: $(1)" >&2; exit 2, \
	@echo "dipmap: $(2) needs packages that are missing; installing them ($(1))."$(newline)\
	$(MAKE) $(1)$(newline)$(MAKE) DEPS_TRIED=1 $(3))
define newline


endef
ifeq ($(HAVE_BUILD_DEPS),yes)
all: build
else
all:
	$(call missing_deps,deps-build,the build,all)
endif
ifneq ($(HAVE_BUILD_DEPS)$(HAVE_PLOT_DEPS),yesyes)
demo:
	$(call missing_deps,deps-build deps-plot,the demo,demo)
endif
ifneq ($(HAVE_DEPS),yes)
test test-build bench validate test-asan test-llama readme:
	$(call missing_deps,deps,$@,$@)
endif

build: $(BIN)

$(BIN): $(OBJS) $(BUILD)/.flags
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

$(BUILD)/.commit: FORCE
	@mkdir -p $(BUILD)
	@echo '$(RELEASE) $(COMMIT)' | cmp -s - $@ || echo '$(RELEASE) $(COMMIT)' >$@
$(BUILD)/harness/base/version.o: $(BUILD)/.commit
$(BUILD)/harness/base/version.o: ALL_CFLAGS += -DDIPMAP_VERSION='"$(RELEASE)"' -DDIPMAP_COMMIT='"$(COMMIT)"' \
	-DDIPMAP_CFLAGS='"$(strip $(CSTD) $(OPT) -g $(SANFLAGS) $(CFLAGS))"'
FORCE:
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/%.o) $(FUZZ_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tests/fuzz/replay_main.o

# Rebuild everything when the compiler or flags change (make CC=clang after gcc).
FLAGS_ID := $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_ID)' | cmp -s - $@ || echo '$(FLAGS_ID)' >$@

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)
$(BUILD)/tests/unit/test_fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay_main.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)

# apt-get install (sudo when not root), with an apt-get update first only when that fails
apt_install = @set -e; if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	echo "dipmap: installing Debian packages: $(1)"; \
	$$SUDO apt-get install -y --no-install-recommends $(1) || \
	{ $$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends $(1); }
deps:
	$(call apt_install,$(DEB_PKGS))
deps-build:
	$(call apt_install,$(BUILD_DEB_PKGS))
deps-plot:
	$(call apt_install,$(PLOT_DEB_PKGS))

ifeq ($(HAVE_BUILD_DEPS)$(HAVE_PLOT_DEPS),yesyes)
# DEMO_OUT=DIR puts the store and reports elsewhere (default reports/)
demo: build
	@$(abspath $(BIN)) demo --out $(or $(DEMO_OUT),reports)
endif

ifeq ($(HAVE_DEPS),yes)
# What make test builds before it runs the suite; make -j2 test-build builds it in parallel
# (.ci/run does, then runs make test as the README says)
TEST_PREREQS = build $(UNIT_BINS) $(FUZZ_REPLAY_BINS) $(BENCH_BINS) $(BUILD)/tests/validate/gate_rates
test-build: $(TEST_PREREQS)
test: $(TEST_PREREQS) check-banned
	@tests/run.sh $(BUILD) $(abspath $(BIN))

# tests/run.sh skips, under the sanitizers, the few CLI tests that say "# sanitizers: skip:
# REASON" (statistics that run one path hundreds of times, replays of documented commands)
test-asan:
	DIPMAP_SANITIZED=1 $(MAKE) BUILD=$(BUILD)-asan SAN=1 test

# The real llama-server family only (tests/cli/99x-llama-*.sh, helpers in tests/llama/);
# `make test` runs it too when LLAMA_SERVER is in the environment, and skips it otherwise.
test-llama: build
	@if [ -z "$(LLAMA_SERVER)" ]; then \
		echo "make test-llama: give the server, e.g. make test-llama LLAMA_SERVER=/path/to/llama-server" >&2; \
		exit 2; fi
	@LLAMA_SERVER="$(abspath $(LLAMA_SERVER))" DIPMAP_REQUIRE_LLAMA=1 \
		tests/run.sh $(BUILD) $(abspath $(BIN)) -llama-

# README's quoted demo output, its CPU time and reports/examples/, rewritten from a fresh demo
# (test 067 checks them against the program)
readme: build
	@scripts/readme-quotes.sh $(abspath $(BIN)) --update

bench: build
	@bench/run.sh $(abspath $(BIN))

# The simulation study of VALIDATION.md (about 15 minutes: the HTTP study ~7 min on 2 cores,
# then gate_rates ~8 min of one core; exit 1 when a criterion fails). VALIDATE_DIR=DIR keeps
# the stores there and reuses complete ones.
validate: build $(BUILD)/tests/validate/gate_rates
	@tests/validate/validate.sh $(abspath $(BIN))
	@echo "validate: the gate's rates in process (VALIDATION.md \"The verdict rules\", \"The hallucination endpoint\"), about 8 min"
	@$(BUILD)/tests/validate/gate_rates $(VALIDATE_RATES)
endif

# The gate's in-process rate study (tests/validate/gate_rates.c): built by make test, run by
# make validate (VALIDATE_RATES="REPLICATES SEQ_REPLICATES", default 200 100: about 8 min of
# CPU, estimated from rows timed on 2026-12-05: 1.4 s a fixed row (136 rows), 1.6 s (a clear
# regression) to 8.5 s (a gate run to its cap) a sequential row (34 rows), with plan's
# prediction beside each gate row (+40 %), and ~80 s for the hallucination endpoint's rows).
$(BUILD)/tests/validate/gate_rates: $(BUILD)/tests/validate/gate_rates.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Tokenizer benchmark (numbers, never failures); see BENCHMARKS.md "Tokenizer".
$(BUILD)/bench/bench_tokenizer: $(BUILD)/bench/bench_tokenizer.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
bench-tokenizer: $(BUILD)/bench/bench_tokenizer build
	@DIPMAP=$(abspath $(BIN)) bench/bench_tokenizer.sh $(BUILD)/bench/bench_tokenizer

# Optional, not part of `make test`: ids identical to Hugging Face tokenizers (npm, installed
# into bench/node on first use) for eight tokenizer.json families on the whole corpora.
tokenizer-conformance: build
	@bench/tokenizer/conformance.sh $(abspath $(BIN))

# Prompt-building benchmark (numbers, never failures); see BENCHMARKS.md "Prompt building".
$(BUILD)/bench/bench_prompt: $(BUILD)/bench/bench_prompt.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
bench-prompt: $(BUILD)/bench/bench_prompt
	@bench/bench_prompt.sh $(BUILD)/bench/bench_prompt

# Statistics benchmark (numbers, never failures); see BENCHMARKS.md "Statistics".
$(BUILD)/bench/bench_stats: $(BUILD)/bench/bench_stats.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
# Store benchmark (bench/bench_store.sh) and the PCRE2 split alone (bench/bench_limits.sh):
# built here, from the one source list and flags, so the scripts keep none of their own.
$(BUILD)/bench/bench_store: $(BUILD)/bench/bench_store.o $(LIB_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/bench/bench_split: $(BUILD)/bench/bench_split.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
bench-stats: $(BUILD)/bench/bench_stats
	@$(BUILD)/bench/bench_stats

# Fuzzing (clang libFuzzer + ASan/UBSan) into build-fuzz/, FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 20
comma := ,
FUZZ_CFLAGS = $(CSTD) -O1 -g $(WARN) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(PKG_CFLAGS) $(HARNESS_INC)
# The library objects once (fuzzer-no-link), then one binary per loader/parser target; each
# runs FUZZ_SECONDS on build-fuzz/corpus-NAME seeded from tests/fuzz/NAME/; crash inputs go to
# build-fuzz/ (copy them to tests/fuzz/regressions/NAME/ after fixing: `make test` replays them).
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build-fuzz/obj/%.o)
.SECONDARY: $(FUZZ_LIB_OBJS)
FUZZ_PARSERS := golden haystack template config score
fuzz: fuzz-tokenizer fuzz-client $(FUZZ_PARSERS:%=fuzz-%)
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_CFLAGS)) \
		-DDIPMAP_VERSION='"$(VERSION)"' -DDIPMAP_COMMIT='"fuzz"' -c -o $@ $<
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_file.h $(FUZZ_LIB_OBJS)
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB_OBJS) $(LIBS)
$(FUZZ_PARSERS:%=fuzz-%): fuzz-%: build-fuzz/fuzz_%
	@mkdir -p build-fuzz/corpus-$* build-fuzz/crash-$*
	build-fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -close_fd_mask=1 -artifact_prefix=build-fuzz/crash-$*/ \
		build-fuzz/corpus-$* tests/fuzz/$*
fuzz-tokenizer: build-fuzz/fuzz_tokenizer
	@mkdir -p build-fuzz/corpus-tokenizer
	build-fuzz/fuzz_tokenizer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
		-print_final_stats=1 build-fuzz/corpus-tokenizer
fuzz-client: build-fuzz/fuzz_client_classify build-fuzz/fuzz_retry_after
	@mkdir -p build-fuzz/corpus-client-classify build-fuzz/corpus-retry-after
	build-fuzz/fuzz_client_classify -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
		-print_final_stats=1 build-fuzz/corpus-client-classify tests/data/client/corpus
	build-fuzz/fuzz_retry_after -max_total_time=$(FUZZ_SECONDS) -max_len=512 -timeout=10 \
		-print_final_stats=1 build-fuzz/corpus-retry-after

# ---- install (README "Install") ---------------------------------------------------------
# make install PREFIX=/usr/local DESTDIR=: the binary, its data under share/dipmap (found by
# the data search order, base/datadir.h), man pages and completions generated from the
# option tables (dipmap help --man / --completion), the license and notes. make uninstall
# with the same variables removes them.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share/dipmap
MANDIR ?= $(PREFIX)/share/man/man1
DOCDIR ?= $(PREFIX)/share/doc/dipmap
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DATA_FILES := $(wildcard datasets/*.jsonl datasets/*.jsonl.gz datasets/*.md)
TOKENIZER_FILES := $(wildcard datasets/tokenizers/*)
PROMPT_FILES := $(wildcard prompts/*.txt)
SCRIPT_FILES := scripts/demo.sh

# build/docs/: dipmap.1, dipmap-COMMAND.1, completions/dipmap (bash), completions/_dipmap (zsh)
# (remade every time, under a second: a stamp would keep pages of an older binary when the
# binary is given as up to date with make -o, as test 020 does)
docs: $(BIN)
	@rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs/man $(BUILD)/docs/completions
	$(abspath $(BIN)) help --man >$(BUILD)/docs/man/dipmap.1
	@for c in $$($(abspath $(BIN)) help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do \
		$(abspath $(BIN)) help --man $$c >$(BUILD)/docs/man/dipmap-$$c.1 || exit 1; done
	$(abspath $(BIN)) help --completion bash >$(BUILD)/docs/completions/dipmap
	$(abspath $(BIN)) help --completion zsh >$(BUILD)/docs/completions/_dipmap

# docs/reference/: one Markdown page per command and an index, generated from the option tables
# like `dipmap help` and the man pages (dipmap help --markdown); test 070 regenerates and diffs
reference: $(BIN)
	@rm -rf docs/reference && mkdir -p docs/reference
	$(abspath $(BIN)) help --markdown >docs/reference/README.md
	@for c in $$($(abspath $(BIN)) help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do \
		$(abspath $(BIN)) help --markdown $$c >docs/reference/$$c.md || exit 1; done

install: build docs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/prompts $(DESTDIR)$(SHAREDIR)/datasets/tokenizers \
		$(DESTDIR)$(SHAREDIR)/scripts \
		$(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/dipmap
	install -m 644 $(PROMPT_FILES) $(DESTDIR)$(SHAREDIR)/prompts/
	install -m 755 $(SCRIPT_FILES) $(DESTDIR)$(SHAREDIR)/scripts/
	install -m 644 $(DATA_FILES) $(DESTDIR)$(SHAREDIR)/datasets/
	install -m 644 $(TOKENIZER_FILES) $(DESTDIR)$(SHAREDIR)/datasets/tokenizers/
	install -m 644 $(BUILD)/docs/man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 644 $(BUILD)/docs/completions/dipmap $(DESTDIR)$(BASHCOMPDIR)/dipmap
	install -m 644 $(BUILD)/docs/completions/_dipmap $(DESTDIR)$(ZSHCOMPDIR)/_dipmap
	install -m 644 LICENSE README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dipmap $(DESTDIR)$(MANDIR)/dipmap.1 $(DESTDIR)$(MANDIR)/dipmap-*.1 \
		$(DESTDIR)$(BASHCOMPDIR)/dipmap $(DESTDIR)$(ZSHCOMPDIR)/_dipmap
	rm -rf $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR)

# ---- release and packaging (README "Install") --------------------------------------------
# make dist: dipmap-RELEASE.tar.gz of the committed tree (git archive HEAD) with
# .tarball-version, which builds and passes outside git the tests that could differ there
# (tests/package/dist.sh). make test-package: the slow packaging tests (tests/package/: dist,
# deb, container), each timed; CI runs it.
DIST_NAME = dipmap-$(RELEASE)
dist:
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make dist: needs a git checkout" >&2; exit 2; }
	@rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist
	git archive --format=tar --prefix=$(DIST_NAME)/ HEAD | tar -x -C $(BUILD)/dist
	echo '$(RELEASE) $(COMMIT)' >$(BUILD)/dist/$(DIST_NAME)/.tarball-version
	tar -C $(BUILD)/dist --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct) -czf $(DIST_NAME).tar.gz $(DIST_NAME)
	@rm -rf $(BUILD)/dist
	@echo "dist: $(DIST_NAME).tar.gz"

# make deb: dipmap_VERSION-1_ARCH.deb (packaging/deb/mkdeb.sh) from `make install PREFIX=/usr`,
# built apart in $(DEB_BUILD)/ with Debian's hardening flags (dpkg-buildflags: fortify, stack
# protector, relro, bindnow, PIE); Depends from dpkg-shlibdeps. DEB_OUT: where the .deb goes.
DEB_BUILD ?= build-deb
DEB_OUT ?= .
DEB_FLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
deb:
	@command -v dpkg-buildflags >/dev/null || { echo "make deb: needs dpkg-dev (apt-get install dpkg-dev)" >&2; exit 2; }
	rm -rf $(DEB_BUILD)/root
	$(MAKE) --no-print-directory BUILD=$(DEB_BUILD) \
		CFLAGS="$$($(DEB_FLAGS) CFLAGS) $$($(DEB_FLAGS) CPPFLAGS)" LDFLAGS="$$($(DEB_FLAGS) LDFLAGS)" \
		PREFIX=/usr ZSHCOMPDIR=/usr/share/zsh/vendor-completions DESTDIR=$(abspath $(DEB_BUILD))/root install
	packaging/deb/mkdeb.sh $(DEB_BUILD)/root '$(RELEASE)' '$(COMMIT)' $(DEB_OUT)

# make image: the container image of Containerfile, built from the release tarball (make dist)
# so dipmap --version inside names the release. IMAGE: its name; BASE: the Debian 12 image to
# start from (--build-arg BASE); CONTAINER_BUILD: the build command (buildah, podman or docker,
# whichever is installed; buildah with chroot isolation, which needs no daemon or user namespace).
IMAGE ?= localhost/dipmap:$(RELEASE)
CONTAINER_BUILD ?= $(or $(if $(shell command -v buildah 2>/dev/null),buildah bud --isolation chroot),\
	$(if $(shell command -v podman 2>/dev/null),podman build),$(if $(shell command -v docker 2>/dev/null),docker build))
image: dist
	@[ -n "$(CONTAINER_BUILD)" ] || { echo "make image: needs buildah, podman or docker" >&2; exit 2; }
	rm -rf $(BUILD)/image && mkdir -p $(BUILD)/image
	tar -xzf $(DIST_NAME).tar.gz -C $(BUILD)/image
	cd $(BUILD)/image/$(DIST_NAME) && $(CONTAINER_BUILD) -f Containerfile $(if $(BASE),--build-arg BASE=$(BASE)) -t $(IMAGE) .
	@rm -rf $(BUILD)/image
	@echo "image: $(IMAGE)"

test-package: build
	@tests/package/run.sh $(abspath $(BIN))

check-banned:
	@bad=$$(grep -L '#include "base/banned.h"' harness/*.c harness/*/*.c); \
	if [ -n "$$bad" ]; then echo "error: these files do not include banned.h: $$bad"; exit 1; fi

# every C file of ours: the harness, unit tests, fuzz targets and benchmarks
FORMAT_SRCS = $(wildcard harness/*.[ch] harness/*/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] bench/*.[ch] tests/validate/*.[ch])
format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf build build-asan build-fuzz build-clang dipmap

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(FUZZ_SRCS:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/replay_main.d

# SPDX-License-Identifier: GPL-2.0
# bpflite: one build from vmlinux.h to static binaries in build/bin/.
#   make [all]      build every tool (installs missing Debian packages first)
#   make check      no root, about a minute: -Werror build, unit tests, lint, docs
#   make smoke      root, a few minutes: check, and one exact-count test per tool
#   make test       unit + integration tests, on this kernel and on every kernel
#                   of tests/vm/kernels under qemu: "N passed, N failed, N skipped"
#   make soak       the long churn and ring-memory tests, then the benchmarks
#   make test-kernels  only the kernel matrix (BPFLITE_KERNELS="NAME ..." picks)
#   make bench      benchmarks (not timed tests)
#   make fuzz       run the fuzz targets for a fixed time
#   make install PREFIX=/usr/local DESTDIR=
#   make deb        build/bpflite_<version>_<arch>.deb (dpkg-deb)
#   make clean

# Tools with a BPF side: bpf/<t>.bpf.c, bpf/<t>.h, tools/<t>.c -> build/bin/<t>-lite
TOOLS := runqlat biolatency tcpretrans dstate strace offcputime execsnoop opensnoop profile
# Tools without a BPF side: tools/<t>.c -> build/bin/<t>-lite
USER_TOOLS := flamegraph

ARCH ?= x86
OUT := build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PREFIX ?= /usr/local
DESTDIR ?=

# The one version string: --version and bpflite_build_info print it.
VERSION := $(shell cat VERSION)
WERROR := $(if $(filter true 1,$(CI)),-Werror)
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra $(WERROR) -std=gnu11 -D_GNU_SOURCE
VERSION_CFLAGS := -DBPFLITE_VERSION='"$(VERSION)"'
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wno-unused-function $(WERROR)
INCLUDES := -I$(OUT) -Icommon -Ibpf -Ivmlinux/$(ARCH)
USER_INCLUDES := -I$(OUT) -Icommon -Ibpf -Itools
# Static: one file that runs on any x86_64 host with a BTF kernel.
LDFLAGS ?=
LDLIBS := -static -lbpf -ldw -lelf -lz -lzstd -llzma -lbz2 -liberty -lm

# common/<layer>/*.c: the library every tool links (docs/DESIGN.md, "Layout").
COMMON_SRC := $(wildcard common/*/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(OUT)/%.o)
LIB := $(OUT)/libbpflite.a
BINS := $(addprefix $(OUT)/bin/,$(addsuffix -lite,$(TOOLS) $(USER_TOOLS)))

.PHONY: deb all deps test unit integration test-kernels bench fuzz install clean check-static
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory $(BINS)

deps:
	@scripts/deps.sh build

$(OUT) $(OUT)/bin $(OUT)/bpf $(OUT)/tools:
	@mkdir -p $@

# BPF object -> skeleton header. bpftool gen object links and strips DWARF.
$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUT)/bpf
	$(CLANG) $(BPF_CFLAGS) $(INCLUDES) -MMD -MP -MT $@ -c $< -o $@.tmp
	$(BPFTOOL) gen object $@ $@.tmp
	@rm -f $@.tmp

$(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(VERSION_CFLAGS) $(USER_INCLUDES) -MMD -MP -c $< -o $@
# what prints the version is rebuilt when it changes
$(OUT)/common/run/opts.o $(OUT)/common/serve/prom.o: VERSION

$(LIB): $(COMMON_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# Syscall names and numbers from the kernel UAPI headers (linux-libc-dev).
UNISTD_DIR ?= /usr/include/x86_64-linux-gnu/asm
$(OUT)/syscall_table.h: scripts/gen-syscalls.sh | $(OUT)
	scripts/gen-syscalls.sh $(UNISTD_DIR)/unistd_64.h $(UNISTD_DIR)/unistd_32.h $@
$(OUT)/tools/strace/decode/syscalls.o: $(OUT)/syscall_table.h

# A tool's object needs its skeleton (if it has one) before it compiles;
# so do the objects of its own sources, tools/<tool>/**/*.c.
define bpf_tool
$(OUT)/tools/$(1).o: tools/$(1).c $(OUT)/$(1).skel.h | $(OUT)/tools
	$$(CC) $$(CFLAGS) $$(USER_INCLUDES) -MMD -MP -c $$< -o $$@
$(OUT)/tools/$(1)/%.o: tools/$(1)/%.c $(OUT)/$(1).skel.h
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(USER_INCLUDES) -MMD -MP -c $$< -o $$@
endef
$(foreach t,$(TOOLS),$(eval $(call bpf_tool,$(t))))
# profile-lite --off-cpu runs offcputime's BPF object alongside its own, and
# links offcputime-lite's collection of it.
$(OUT)/tools/profile.o: $(OUT)/offcputime.skel.h
$(OUT)/bin/profile-lite: $(OUT)/tools/offcputime/collect.o

# flamegraph-lite's script and style, embedded as C arrays. "]]>" would end
# the SVG's CDATA section early: refused here.
FLAMEGRAPH_ASSETS := tools/flamegraph/flamegraph.js tools/flamegraph/flamegraph.css
$(OUT)/flamegraph_assets.h: $(FLAMEGRAPH_ASSETS) | $(OUT)
	@if grep -l ']]>' $^; then echo "$@: ']]>' in the files above would end the SVG's CDATA" >&2; exit 1; fi
	(cd tools/flamegraph && for f in $(notdir $^); do xxd -i $$f; done) > $@.tmp && mv $@.tmp $@
$(OUT)/tools/flamegraph.o: $(OUT)/flamegraph_assets.h

$(OUT)/tools/%.o: tools/%.c | $(OUT)/tools
	$(CC) $(CFLAGS) $(USER_INCLUDES) -MMD -MP -c $< -o $@

# A tool is tools/<tool>.c and, if it has them, tools/<tool>/*.c and
# tools/<tool>/*/*.c (its private modules: strace-lite's decoders).
$(foreach t,$(TOOLS) $(USER_TOOLS),$(eval $(OUT)/bin/$(t)-lite: \
	$(patsubst %.c,$(OUT)/%.o,$(wildcard tools/$(t)/*.c tools/$(t)/*/*.c))))
$(OUT)/bin/%-lite: $(OUT)/tools/%.o $(LIB) | $(OUT)/bin
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(LIB) $(LDLIBS) -o $@

check-static: all
	@for b in $(BINS); do file $$b | grep -q 'statically linked' || { echo "$$b is not static"; exit 1; }; done

# ---- tests --------------------------------------------------------------
# The tiers (tests/run.sh TIER; tests/tags.sh says which test is in which):
#   make check  no root, about a minute: the build with -Werror, unit tests,
#               lint, docs agreement, every tool's usage and bad input
#               (tests/integration/usage.bats: one table for every tool)
#   make smoke  root, a few minutes: check, and the tests tagged smoke
#   make test   root: everything but soak, the kernel matrix included
#   make soak   root, outside CI: long churn, ring memory, then the benchmarks
.PHONY: check smoke soak print-tools print-bpf-tools
check: deps
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory CI=true all
	@$(MAKE) --no-print-directory CI=true -f tests/Makefile.tests all
	@tests/run.sh check

smoke: deps
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory CI=true all
	@$(MAKE) --no-print-directory CI=true -f tests/Makefile.tests all
	@tests/run.sh smoke

soak: deps
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@tests/run.sh soak

test: deps
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@tests/run.sh

unit: all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@tests/run.sh unit

integration: all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@tests/run.sh integration

test-kernels: deps
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@tests/run.sh kernels

bench: deps
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests all
	@scripts/bench.sh

fuzz: all
	@$(MAKE) --no-print-directory -f tests/Makefile.tests fuzz

# ---- install ------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(wildcard man/*.8) $(DESTDIR)$(PREFIX)/share/man/man8/

# ---- Debian package ------------------------------------------------------
deb: all
	@scripts/mkdeb.sh $(VERSION) $(OUT) $(addsuffix -lite,$(TOOLS) $(USER_TOOLS))

clean:
	rm -rf $(OUT)

.SECONDARY:
-include $(wildcard $(OUT)/bpf/*.d $(OUT)/common/*/*.d $(OUT)/tools/*.d $(OUT)/tools/*/*.d $(OUT)/tools/*/*/*.d)

print-tools:
	@echo $(addsuffix -lite,$(TOOLS) $(USER_TOOLS))
# the tools with a BPF side (the kernel matrix's tests are theirs)
print-bpf-tools:
	@echo $(addsuffix -lite,$(TOOLS))

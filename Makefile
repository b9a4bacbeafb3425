# loopkit: one non-recursive Makefile. `make help` lists the targets.
include config.mk
.DEFAULT_GOAL := all
# No built-in rules: make's own yacc and lex rules would write generated
# C into the source tree.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
%.c: %.y
%.c: %.l

# Everything computed from the installed packages (pkg-config, the GCC
# plugin headers) is computed when make reads this file: the targets that
# install packages first (demo, check) run the build in a sub-make, which
# reads it again after the install.
PKG_FOUND  := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)
ifneq ($(PKG_FOUND),yes)
ifeq ($(filter deps demo check clean help format,$(MAKECMDGOALS)),)
$(error libraries missing ($(PKGS), seen by pkg-config): run 'make deps', or 'make demo', which installs them)
endif
endif
# libcsv (Debian libcsv-dev, LGPL-2.1, linked dynamically) has no .pc file.
ifeq ($(wildcard /usr/include/csv.h),)
ifeq ($(filter deps demo check clean help format,$(MAKECMDGOALS)),)
$(error libcsv missing (/usr/include/csv.h): run 'make deps')
endif
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lZydis -lZycore \
	      -lxxhash -lcsv $(CLANG_LIBS) -lpthread -lm
CPPFLAGS   += $(CLANG_CFLAGS)

ABS_O      := $(abspath $(O))
CPPFLAGS   += -Iinclude -Irt -D_GNU_SOURCE
CFLAGS     := $(CSTD) $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS    += $(SANFLAGS)

# The runtime linked into benchmarks: never sanitised, position independent
# (benchmarks are PIE by default on Debian), no dependency on the library.
RT_CFLAGS  := $(CSTD) -O2 -g -fPIC $(WARN) -Irt -D_GNU_SOURCE

LIB_SRC    := $(sort $(wildcard src/core/*.c src/config/*.c src/store/*.c \
		src/env/*.c src/toolchain/*.c src/binary/*.c \
		src/measure/*.c src/memprof/*.c src/bb/*.c src/predict/*.c \
		src/filter/*.c src/report/*.c src/gen/*.c \
		src/stats/*.c src/plot/*.c src/mdl/*.c src/analyze/*.c))
# Scanners and grammars (flex, bison), generated into $(O).
LEX_SRC    := $(sort $(wildcard src/*/*.l))
YACC_SRC   := $(sort $(wildcard src/*/*.y))
GEN_C      := $(YACC_SRC:%.y=$(O)/%.tab.c) $(LEX_SRC:%.l=$(O)/%.lex.c)
GEN_H      := $(YACC_SRC:%.y=$(O)/%.tab.h)
GEN_OBJ    := $(GEN_C:%.c=%.o)
CLI_SRC    := $(sort $(wildcard src/cli/*.c))
RT_SRC     := $(sort $(wildcard rt/*.c))
UNIT_SRC   := $(sort $(wildcard tests/unit/test-*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz-*.c))

LIB_OBJ    := $(LIB_SRC:%.c=$(O)/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(O)/%.o)
RT_OBJ     := $(RT_SRC:%.c=$(O)/rt-obj/%.o)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

LIBLK      := $(O)/liblk.a
LIBLKRT    := $(O)/lib/liblkrt.a
LOOPKIT    := $(O)/loopkit

# Where the built loopkit finds lkrt.h and liblkrt.a to compile benchmarks.
RT_PATHS   := -DLK_RT_INCLUDE_DIR='"$(abspath rt)"' \
	      -DLK_RT_LIB_DIR='"$(ABS_O)/lib"' \
	      -DLK_PLUGIN_PATH='"$(ABS_O)/plugin/lkmemprof.so"' \
	      -DLK_SHARE_DIR='"$(abspath share)"'

# The GCC plugin (C++, as GCC requires), when the plugin headers exist.
GCC_PLUGIN_DIR := $(shell gcc -print-file-name=plugin 2>/dev/null)
PLUGIN_SRC := $(sort $(wildcard plugin/gcc/*.cc))
ifneq ($(wildcard $(GCC_PLUGIN_DIR)/include/gcc-plugin.h),)
ifneq ($(PLUGIN_SRC),)
PLUGIN     := $(O)/plugin/lkmemprof.so
endif
endif
PLUGIN_CXXFLAGS := -std=gnu++17 -O2 -g -fPIC -fno-rtti -Wall -Wextra \
		   -Wno-unused-parameter -I$(GCC_PLUGIN_DIR)/include

$(O)/plugin/lkmemprof.so: $(PLUGIN_SRC) $(wildcard plugin/gcc/*.h)
	@mkdir -p $(@D)
	g++ $(PLUGIN_CXXFLAGS) -shared -o $@ $(PLUGIN_SRC)

.PHONY: all check check-suite unit e2e demo bench deps fuzz clean help layers \
	format asan
all: $(LOOPKIT) $(LIBLKRT) $(PLUGIN)

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/src/toolchain/%.o: CPPFLAGS += $(RT_PATHS)

$(O)/rt-obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -MMD -MP -c -o $@ $<

# Generated code: its own warnings are not ours to fix.
$(O)/%.tab.c $(O)/%.tab.h: %.y
	@mkdir -p $(@D)
	bison -d -o $(O)/$*.tab.c $<

$(O)/%.lex.c: %.l $(GEN_H)
	@mkdir -p $(@D)
	flex -o $@ $<

$(GEN_OBJ): %.o: %.c $(GEN_H)
	$(CC) $(CPPFLAGS) -I$(dir $<) -I$(patsubst $(O)/%,%,$(dir $<)) \
		$(CSTD) $(OPT) $(SANFLAGS) -w -MMD -MP -c -o $@ $<

$(LIB_OBJ): $(GEN_H)
$(LIB_OBJ): CPPFLAGS += $(addprefix -I,$(sort $(dir $(GEN_H))))

$(LIBLK): $(LIB_OBJ) $(GEN_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBLKRT): $(RT_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LOOPKIT): $(CLI_OBJ) $(LIBLK) $(LIBLKRT)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBLK) $(LIBLKRT) $(PKG_LIBS)

$(O)/tests/test-%: tests/unit/test-%.c $(LIBLK) $(LIBLKRT)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(RT_PATHS) $(CFLAGS) $(shell pkg-config --cflags criterion) \
		-MMD -MP -o $@ $< $(LIBLK) $(LIBLKRT) $(LDFLAGS) $(PKG_LIBS) \
		$(shell pkg-config --libs criterion)

unit: $(UNIT_BIN)
	@pass=0; fail=0; for t in $(UNIT_BIN); do \
		echo "== $$t"; \
		if LOOPKIT_TEST_DATA=$(abspath tests/data) $$t --jobs 2; \
		then pass=$$((pass + 1)); else fail=$$((fail + 1)); fi; \
	done; \
	echo "unit: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]

e2e: $(LOOPKIT) $(LIBLKRT) $(PLUGIN)
	@LOOPKIT=$(ABS_O)/loopkit sh tests/e2e/run.sh $(T)

# One after the other, whatever -j says.
check-suite:
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory e2e

# make check: the plain build (what make demo builds and users run) and
# its unit tests, then the unit and end-to-end tests built with ASan+UBSan
# in their own build directory (the end-to-end tests run once, under the
# sanitisers: twice, plain too, made the suite 20 minutes on 2 cores),
# then the fuzz corpora replayed. Packages first, then the builds, each
# on every core ($(JOBS) jobs): serial, the two builds alone took 5 of
# the suite's minutes. The tests themselves never run beside a build or
# each other (measuring tests need the cores quiet).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	@$(MAKE) --no-print-directory layers
	@$(MAKE) --no-print-directory -j$(JOBS) all $(UNIT_BIN)
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory -j$(JOBS) O=$(O)/asan SANITIZE=1 \
		all $(UNIT_BIN:$(O)/%=$(O)/asan/%)
	@$(MAKE) --no-print-directory O=$(O)/asan SANITIZE=1 check-suite
	@sh tests/fuzz/run.sh $(O)/fuzz regress

asan:
	@$(MAKE) --no-print-directory O=$(O)/asan SANITIZE=1 check-suite

# The include arrows follow doc/design.md's layers; the self-test proves
# the check catches a stage including another stage's header.
layers:
	@sh tests/layers.sh
	@sh tests/layers.sh --self-test

fuzz:
	@sh tests/fuzz/run.sh $(O)/fuzz explore

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh examples/demo.sh $(LOOPKIT)

bench: all
	@sh bench/run.sh $(LOOPKIT)

deps:
	@sh tools/install-deps.sh

format:
	clang-format -i $(LIB_SRC) $(CLI_SRC) $(RT_SRC) include/loopkit/*.h rt/*.h

clean:
	rm -rf $(O)

help:
	@echo "make          build loopkit and the benchmark runtime (O=dir)"
	@echo "make deps     install the Debian packages loopkit needs"
	@echo "make check    layer check, unit + end-to-end tests, then again under ASan+UBSan"
	@echo "make layers   the include arrows follow doc/design.md's layers"
	@echo "make demo     run the example sweep into ./loopkit.d"
	@echo "make bench    overhead and stability benchmarks"
	@echo "make fuzz     run the fuzz targets for a while"

-include $(shell find $(O) -name '*.d' 2>/dev/null)

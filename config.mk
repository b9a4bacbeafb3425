# Build configuration; override on the command line (make CC=clang O=out).
CC       ?= gcc
O        ?= build
PREFIX   ?= /usr/local
CSTD     := -std=gnu11
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wmissing-prototypes
OPT      ?= -O2 -g
ifeq ($(DEVELOPER),1)
WARN     += -Werror
endif
ifeq ($(SANITIZE),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
PKGS     := yaml-0.1 sqlite3 libelf isl
# libclang (C API) from Debian's libclang-19-dev: the generator's C front end.
LLVM_DIR ?= /usr/lib/llvm-19
CLANG_CFLAGS := -isystem $(LLVM_DIR)/include
CLANG_LIBS   := -L$(LLVM_DIR)/lib -Wl,-rpath,$(LLVM_DIR)/lib -lclang

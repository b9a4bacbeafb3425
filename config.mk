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
PKGS     := yaml-0.1 sqlite3 libelf

/*
 * Private to src/binary: an ELF file opened with libelf, its function
 * symbols, and the bytes behind them. lk_elf_function and
 * lk_elf_roi_function are built on it.
 */
#ifndef LOOPKIT_BINARY_ELF_IMAGE_H
#define LOOPKIT_BINARY_ELF_IMAGE_H

#include <libelf.h>

#include "loopkit/binary.h"

struct elf_sym {
	char *name;            /* owned */
	uint64_t addr, size;   /* link-time virtual address (objdump's) */
	size_t shndx;          /* section holding it; 0 if not a real one */
	int global;            /* STB_GLOBAL or STB_WEAK */
};

struct elf_image {
	const char *path;      /* borrowed, for messages */
	int fd;
	Elf *elf;
	const char *raw;       /* the whole file, libelf's copy */
	size_t rawlen;
	int relocatable;       /* ET_REL: addresses are section offsets */
	struct elf_sym *syms;  /* STT_FUNC symbols, sorted by address */
	size_t nsyms, alloc;
	int symtab;            /* has a .symtab (not stripped) */
};

/*
 * Open path and read its function symbols (.symtab, else .dynsym).
 * LK_EINPUT, naming the file, when it is missing or not an x86-64 ELF.
 * The image is released even on failure.
 */
int elf_image_open(struct lk_ctx *ctx, const char *path,
		   struct elf_image *img);
void elf_image_close(struct elf_image *img);
/* The symbol called name (one with a size preferred), or NULL. */
const struct elf_sym *elf_image_find(const struct elf_image *img,
				     const char *name);
/* The symbol starting at addr (one with a size preferred), or NULL. */
const struct elf_sym *elf_image_at(const struct elf_image *img,
				   uint64_t addr);
/* Borrow sym's bytes from the file: 0, or LK_EINPUT when they are not
 * in it (no size, a NOBITS section, a truncated file). */
int elf_image_bytes(struct lk_ctx *ctx, const struct elf_image *img,
		    const struct elf_sym *sym, const uint8_t **code);
/* The PLT entry through which the file calls the shared object's
 * function 'name' (.plt.sec or .plt), or 0. */
uint64_t elf_image_plt(const struct elf_image *img, const char *name);
/* Copy sym into a struct lk_function. */
int elf_image_function(struct lk_ctx *ctx, const struct elf_image *img,
		       const struct elf_sym *sym, struct lk_function *out);

#endif

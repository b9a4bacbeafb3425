/*
 * Functions of an x86-64 ELF file, found with libelf. Addresses are the
 * link-time virtual addresses objdump prints, also for PIE (ET_DYN)
 * binaries; in a relocatable object they are offsets in the section.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf-image.h"

static int not_x86_64(struct lk_ctx *ctx, const char *path, const char *why)
{
	return lk_error(ctx, LK_EINPUT, "%s: not an x86-64 ELF file (%s)", path,
			why);
}

static int malformed(struct lk_ctx *ctx, const struct elf_image *img,
		     const char *what, uint64_t end)
{
	return lk_error(ctx, LK_EINPUT, "%s: truncated or malformed ELF file "
			"(%s end at byte %llu of %zu)", img->path, what,
			(unsigned long long)end, img->rawlen);
}

static int past(uint64_t off, uint64_t n, uint64_t size, size_t len,
		uint64_t *end)
{
	*end = off + n * size;
	return (n && size > UINT64_MAX / n) || *end < off || *end > len;
}

/*
 * A file cut short (a copy that failed, a build killed mid-link) still
 * has its header: libelf then finds no sections, and without this check
 * the failure would read as a missing symbol.
 */
static int check_extent(struct lk_ctx *ctx, const struct elf_image *img,
			const GElf_Ehdr *eh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t end;

	if (past(eh->e_phoff, eh->e_phnum, eh->e_phentsize, img->rawlen, &end))
		return malformed(ctx, img, "program headers", end);
	if (past(eh->e_shoff, eh->e_shnum, eh->e_shentsize, img->rawlen, &end))
		return malformed(ctx, img, "section headers", end);
	while ((scn = elf_nextscn(img->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return malformed(ctx, img, "section headers",
					 eh->e_shoff);
		if (sh.sh_type != SHT_NOBITS &&
		    past(sh.sh_offset, 1, sh.sh_size, img->rawlen, &end))
			return malformed(ctx, img, "sections", end);
	}
	return 0;
}

static int check_header(struct lk_ctx *ctx, struct elf_image *img)
{
	GElf_Ehdr eh;

	if (elf_kind(img->elf) != ELF_K_ELF)
		return not_x86_64(ctx, img->path, "no ELF header");
	if (gelf_getclass(img->elf) != ELFCLASS64 ||
	    !gelf_getehdr(img->elf, &eh))
		return not_x86_64(ctx, img->path, "not 64-bit");
	if (eh.e_machine != EM_X86_64)
		return not_x86_64(ctx, img->path, "another machine");
	img->relocatable = eh.e_type == ET_REL;
	img->raw = elf_rawfile(img->elf, &img->rawlen);
	if (!img->raw)
		return not_x86_64(ctx, img->path, elf_errmsg(-1));
	return check_extent(ctx, img, &eh);
}

static void add_symbol(struct elf_image *img, const char *name,
		       const GElf_Sym *st)
{
	struct elf_sym *s;

	LK_GROW(img->syms, img->nsyms + 1, img->alloc);
	s = &img->syms[img->nsyms++];
	s->name = lk_strdup(name);
	s->addr = st->st_value;
	s->size = st->st_size;
	s->shndx = st->st_shndx < SHN_LORESERVE ? st->st_shndx : 0;
	s->global = GELF_ST_BIND(st->st_info) != STB_LOCAL;
}

/* Is section ndx of img executable code? */
static int exec_section(const struct elf_image *img, size_t ndx)
{
	Elf_Scn *scn = ndx && ndx < SHN_LORESERVE ? elf_getscn(img->elf, ndx)
						   : NULL;
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* A function: an STT_FUNC symbol, or a global label in code without a
 * type (hand-written assembly without '.type f, @function'). */
static int is_function(const struct elf_image *img, const GElf_Sym *st)
{
	int bind = GELF_ST_BIND(st->st_info);

	if (st->st_shndx == SHN_UNDEF)
		return 0;
	if (GELF_ST_TYPE(st->st_info) == STT_FUNC)
		return 1;
	return GELF_ST_TYPE(st->st_info) == STT_NOTYPE &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       exec_section(img, st->st_shndx);
}

/* The functions of one symbol table section; how many. */
static size_t read_symtab(struct elf_image *img, Elf_Scn *scn,
			  const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n, before = img->nsyms;
	GElf_Sym st;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &st) || !is_function(img, &st))
			continue;
		name = elf_strptr(img->elf, sh->sh_link, st.st_name);
		if (name && *name)
			add_symbol(img, name, &st);
	}
	return img->nsyms - before;
}

/*
 * A function without a size (assembly without '.size') reaches the
 * next function of its section at a higher address, or the section's
 * end. The symbols are sorted by address; in an object file every
 * section starts at 0, so the next one of the same section is looked for.
 */
static void infer_sizes(struct elf_image *img)
{
	size_t i, j;

	for (i = 0; i < img->nsyms; i++) {
		struct elf_sym *s = &img->syms[i];
		Elf_Scn *scn;
		GElf_Shdr sh;
		uint64_t end;

		if (s->size || !(scn = elf_getscn(img->elf, s->shndx)) ||
		    !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    s->addr < sh.sh_addr || s->addr - sh.sh_addr >= sh.sh_size)
			continue;
		end = sh.sh_addr + sh.sh_size;
		for (j = i + 1; j < img->nsyms; j++)
			if (img->syms[j].shndx == s->shndx &&
			    img->syms[j].addr > s->addr) {
				if (img->syms[j].addr < end)
					end = img->syms[j].addr;
				break;
			}
		s->size = end - s->addr;
	}
}

/* .symtab when there is one (it holds static functions), else .dynsym. */
static void read_symbols(struct elf_image *img)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	int pass;

	for (pass = 0; pass < 2 && !img->nsyms; pass++) {
		Elf64_Word want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		for (scn = elf_nextscn(img->elf, NULL); scn;
		     scn = elf_nextscn(img->elf, scn))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == want) {
				img->symtab |= want == SHT_SYMTAB;
				read_symtab(img, scn, &sh);
			}
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases, the one with a size first. */
	return (y->size != 0) - (x->size != 0);
}

int elf_image_open(struct lk_ctx *ctx, const char *path,
		   struct elf_image *img)
{
	int ret;

	memset(img, 0, sizeof(*img));
	img->path = path;
	img->fd = -1;
	/* A fifo would block the open, a device feed libelf forever; a
	 * missing file is said below. */
	if (lk_path_exists(path) && (ret = lk_file_check_regular(ctx, path)))
		goto fail;
	img->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (img->fd < 0) {
		ret = lk_error(ctx, LK_EINPUT,
			       "%s: not an x86-64 ELF file "
			       "(cannot open it: %s)",
			       path, strerror(errno));
		goto fail;
	}
	elf_version(EV_CURRENT);
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	ret = img->elf ? check_header(ctx, img)
		       : not_x86_64(ctx, path, elf_errmsg(-1));
	if (ret)
		goto fail;
	read_symbols(img);
	if (img->nsyms) {
		qsort(img->syms, img->nsyms, sizeof(*img->syms), by_addr);
		infer_sizes(img);
	}
	return 0;
fail:
	elf_image_close(img);
	return ret;
}

void elf_image_close(struct elf_image *img)
{
	size_t i;

	for (i = 0; i < img->nsyms; i++)
		free(img->syms[i].name);
	free(img->syms);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

const struct elf_sym *elf_image_find(const struct elf_image *img,
				     const char *name)
{
	const struct elf_sym *found = NULL;
	size_t i;

	for (i = 0; i < img->nsyms; i++) {
		const struct elf_sym *s = &img->syms[i];

		if (strcmp(s->name, name))
			continue;
		if (s->size)
			return s;
		if (!found)
			found = s;
	}
	return found;
}

const struct elf_sym *elf_image_at(const struct elf_image *img,
				   uint64_t addr)
{
	size_t lo = 0, hi = img->nsyms;

	/* The first symbol at addr: by_addr put the sized alias there. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nsyms && img->syms[lo].addr == addr ? &img->syms[lo]
							      : NULL;
}

/* Does section sh hold [addr, addr + size) with bytes in the file? */
static int section_holds(const struct elf_image *img, const GElf_Shdr *sh,
			 uint64_t addr, uint64_t size)
{
	if (sh->sh_type == SHT_NOBITS || addr < sh->sh_addr ||
	    addr - sh->sh_addr > sh->sh_size ||
	    size > sh->sh_size - (addr - sh->sh_addr))
		return 0;
	return sh->sh_offset <= img->rawlen &&
	       sh->sh_offset + (addr - sh->sh_addr) + size <= img->rawlen;
}

/* The section by the symbol's index, else (a synthetic symbol) the
 * allocated section whose addresses cover it. */
static int find_section(const struct elf_image *img, const struct elf_sym *s,
			GElf_Shdr *sh)
{
	Elf_Scn *scn;

	if (s->shndx) {
		scn = elf_getscn(img->elf, s->shndx);
		return scn && gelf_getshdr(scn, sh) &&
		       section_holds(img, sh, s->addr, s->size);
	}
	if (img->relocatable)
		return 0;
	for (scn = elf_nextscn(img->elf, NULL); scn;
	     scn = elf_nextscn(img->elf, scn))
		if (gelf_getshdr(scn, sh) && (sh->sh_flags & SHF_ALLOC) &&
		    section_holds(img, sh, s->addr, s->size))
			return 1;
	return 0;
}

int elf_image_bytes(struct lk_ctx *ctx, const struct elf_image *img,
		    const struct elf_sym *sym, const uint8_t **code)
{
	GElf_Shdr sh;

	if (!sym->size)
		return lk_error(ctx, LK_EINPUT,
				"%s: function %s has no size in the "
				"symbol table",
				img->path, sym->name);
	if (!find_section(img, sym, &sh))
		return lk_error(ctx, LK_EINPUT,
				"%s: the bytes of function %s are not in "
				"the file",
				img->path, sym->name);
	*code = (const uint8_t *)img->raw + sh.sh_offset +
		(sym->addr - sh.sh_addr);
	return 0;
}

int elf_image_function(struct lk_ctx *ctx, const struct elf_image *img,
		       const struct elf_sym *sym, struct lk_function *out)
{
	const uint8_t *code;
	int ret = elf_image_bytes(ctx, img, sym, &code);

	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->name = lk_strdup(sym->name);
	out->binary = lk_strdup(img->path);
	out->addr = sym->addr;
	out->size = sym->size;
	out->code = lk_malloc(sym->size);
	memcpy(out->code, code, sym->size);
	return 0;
}

/* Is sym a compiler's clone of function name ("name.constprop.0",
 * "name.isra.0", "name.part.0"; not the ".cold" split of it)? */
static int is_clone(const struct elf_sym *sym, const char *name)
{
	size_t n = strlen(name);

	return sym->size && !strncmp(sym->name, name, n) &&
	       sym->name[n] == '.' && !strstr(sym->name + n, ".cold");
}

/* The C runtime's start-up code (crt1.o, crti.o, gcc's crtstuff.c). */
static int startup_code(const char *name)
{
	return name[0] == '_' || !strcmp(name, "deregister_tm_clones") ||
	       !strcmp(name, "register_tm_clones") ||
	       !strcmp(name, "frame_dummy");
}

/* No function 'name' at all: say where a static function inlined into
 * its callers went, and name the program's own functions. */
static int no_function(struct lk_ctx *ctx, const struct elf_image *img,
		       const char *binary, const char *name)
{
	struct lk_buf some = LK_BUF_INIT;
	size_t i, own = 0;
	int ret;

	if (!img->symtab)
		return lk_error(ctx, LK_ENOTFOUND, "%s: no function '%s': the "
				"binary is stripped (no .symtab; .dynsym names "
				"only exported functions): build it without "
				"-s and do not strip it", binary, name);
	for (i = 0; i < img->nsyms; i++) {
		if (startup_code(img->syms[i].name))
			continue;
		if (own < 8)
			lk_buf_addf(&some, "%s%s", own ? ", " : "",
				    img->syms[i].name);
		own++;
	}
	if (own > 8)
		lk_buf_addf(&some, " and %zu more", own - 8);
	ret = lk_error(ctx, LK_ENOTFOUND, "%s: no function '%s' in the symbol "
		       "table (a static function the compiler inlined has "
		       "none: name its caller, main for instance); %s%s",
		       binary, name, own ? "its functions: " : "it has no "
		       "functions but start-up code", lk_buf_str(&some));
	lk_buf_release(&some);
	return ret;
}

/*
 * No symbol 'name': its one clone (gcc renames a static function it
 * specialises, "triad.constprop.0"), else LK_ENOTFOUND naming the
 * clones when there are several, or saying there is none.
 */
static int find_clone(struct lk_ctx *ctx, const struct elf_image *img,
		      const char *binary, const char *name,
		      const struct elf_sym **out)
{
	struct lk_strv names = LK_STRV_INIT;
	char *list;
	size_t i;
	int ret;

	for (i = 0; i < img->nsyms; i++) {
		if (!is_clone(&img->syms[i], name))
			continue;
		lk_strv_push(&names, img->syms[i].name);
		*out = &img->syms[i];
	}
	if (names.n == 1) {
		lk_strv_release(&names);
		return 0;
	}
	list = lk_strv_join(&names, ", ");
	if (names.n)
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no function '%s' in "
			       "the symbol table, but %zu clones of it: %s "
			       "(name one)", binary, name, names.n, list);
	else
		ret = no_function(ctx, img, binary, name);
	free(list);
	lk_strv_release(&names);
	return ret;
}

/*
 * A local label in code called name (hand-written assembly's 'f:'
 * without .globl), when named: it reaches the next function of its
 * section, or the section's end (its own named labels inside it).
 */
static int local_label(const struct elf_image *img, const char *name,
		       struct elf_sym *out)
{
	Elf_Scn *scn = NULL, *in;
	GElf_Shdr sh, insh;
	GElf_Sym st;
	size_t i, n, j;

	while ((scn = elf_nextscn(img->elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !data || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *s;

			if (!gelf_getsym(data, (int)i, &st) ||
			    GELF_ST_TYPE(st.st_info) != STT_NOTYPE ||
			    GELF_ST_BIND(st.st_info) != STB_LOCAL ||
			    !exec_section(img, st.st_shndx) ||
			    !(s = elf_strptr(img->elf, sh.sh_link, st.st_name)) ||
			    strcmp(s, name))
				continue;
			in = elf_getscn(img->elf, st.st_shndx);
			if (!in || !gelf_getshdr(in, &insh))
				return 0;
			out->name = (char *)name;
			out->addr = st.st_value;
			out->shndx = st.st_shndx;
			out->size = insh.sh_addr + insh.sh_size - st.st_value;
			for (j = 0; j < img->nsyms; j++)
				if (img->syms[j].shndx == out->shndx &&
				    img->syms[j].addr > out->addr &&
				    img->syms[j].addr - out->addr < out->size)
					out->size = img->syms[j].addr - out->addr;
			return 1;
		}
	}
	return 0;
}

int lk_elf_function(struct lk_ctx *ctx, const char *binary, const char *name,
		    struct lk_function *out)
{
	struct elf_sym label;
	struct elf_image img;
	const struct elf_sym *sym;
	int ret = elf_image_open(ctx, binary, &img);

	if (ret)
		return ret;
	sym = elf_image_find(&img, name);
	if (!sym && local_label(&img, name, &label))
		sym = &label;
	if (!sym)
		ret = find_clone(ctx, &img, binary, name, &sym);
	if (!ret)
		ret = elf_image_function(ctx, &img, sym, out);
	elf_image_close(&img);
	return ret;
}

int lk_elf_first_global(struct lk_ctx *ctx, const char *binary,
			char **name)
{
	struct elf_image img;
	const struct elf_sym *first = NULL;
	size_t i;
	int ret = elf_image_open(ctx, binary, &img);

	*name = NULL;
	if (ret)
		return ret;
	for (i = 0; i < img.nsyms; i++) {
		const struct elf_sym *s = &img.syms[i];

		if (s->global && (!first || s->shndx < first->shndx ||
				  (s->shndx == first->shndx &&
				   s->addr < first->addr)))
			first = s;
	}
	if (first)
		*name = lk_strdup(first->name);
	else
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no global function",
			       binary);
	elf_image_close(&img);
	return ret;
}

void lk_function_release(struct lk_function *fn)
{
	if (!fn)
		return;
	free(fn->name);
	free(fn->code);
	free(fn->binary);
	memset(fn, 0, sizeof(*fn));
}

/* The allocated section with file contents holding [addr, addr + n). */
static int data_at(const struct elf_image *img, uint64_t addr, size_t n,
		   GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(img->elf, scn)))
		if (gelf_getshdr(scn, out) && out->sh_type != SHT_NOBITS &&
		    (out->sh_flags & SHF_ALLOC) && addr >= out->sh_addr &&
		    n <= out->sh_size && addr - out->sh_addr <= out->sh_size - n)
			return 1;
	return 0;
}

int lk_elf_read(struct lk_ctx *ctx, const char *binary, uint64_t addr,
		void *out, size_t n)
{
	struct elf_image img;
	GElf_Shdr sh;
	int ret = elf_image_open(ctx, binary, &img);

	if (ret)
		return ret;
	if (img.relocatable || !data_at(&img, addr, n, &sh))
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no initialised data at "
			       "0x%llx (%zu bytes)%s", binary,
			       (unsigned long long)addr, n, img.relocatable ?
			       ": a relocatable object" : "");
	else
		memcpy(out, img.raw + sh.sh_offset + (addr - sh.sh_addr), n);
	elf_image_close(&img);
	return ret;
}

/* The GOT slot the PLT jumps through for 'name': a JUMP_SLOT relocation
 * of .rela.plt against it. 0 if there is none. */
static uint64_t got_slot(const struct elf_image *img, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(img->elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !data || !sh.sh_entsize ||
		    !(symscn = elf_getscn(img->elf, sh.sh_link)) ||
		    !gelf_getshdr(symscn, &symsh))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym st;
			const char *s;

			if (!gelf_getrela(data, (int)i, &r) ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
			    !gelf_getsym(elf_getdata(symscn, NULL),
					 (int)GELF_R_SYM(r.r_info), &st))
				continue;
			s = elf_strptr(img->elf, symsh.sh_link, st.st_name);
			if (s && !strcmp(s, name))
				return r.r_offset;
		}
	}
	return 0;
}

/* A 16-byte PLT entry of sh holding "jmp *slot(%rip)" (ff 25 rel32, maybe
 * after bnd or endbr64). */
static uint64_t plt_entry(const struct elf_image *img, const GElf_Shdr *sh,
			  uint64_t slot)
{
	const uint8_t *code = (const uint8_t *)img->raw + sh->sh_offset;
	uint64_t k;

	if (!section_holds(img, sh, sh->sh_addr, sh->sh_size))
		return 0;
	for (k = 0; k + 6 <= sh->sh_size; k++) {
		int32_t rel;

		if (code[k] != 0xff || code[k + 1] != 0x25)
			continue;
		memcpy(&rel, code + k + 2, 4);
		if (sh->sh_addr + k + 6 + (uint64_t)(int64_t)rel == slot)
			return sh->sh_addr + (k & ~(uint64_t)15);
	}
	return 0;
}

uint64_t elf_image_plt(const struct elf_image *img, const char *name)
{
	uint64_t slot = img->relocatable ? 0 : got_slot(img, name);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!slot || elf_getshdrstrndx(img->elf, &shstrndx))
		return 0;
	/* With IBT the calls go to .plt.sec; without, to .plt. */
	while ((scn = elf_nextscn(img->elf, scn))) {
		const char *s;
		uint64_t entry;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		s = elf_strptr(img->elf, shstrndx, sh.sh_name);
		if (s && (!strcmp(s, ".plt.sec") || !strcmp(s, ".plt")) &&
		    (entry = plt_entry(img, &sh, slot)))
			return entry;
	}
	return 0;
}

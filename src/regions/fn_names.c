/* SPDX-License-Identifier: MIT */
/*
 * The names of functions the compiler's hooks report (functions.c): the
 * symbol whose range holds the address, from the symbol table of the
 * object it is in (.symtab, else .dynsym), demangled when the C++ runtime
 * is loaded; an object without symbols gives "object+0xoffset". Each
 * object's file is mapped once, on its first function, and kept.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regions/functions.h"
#include "regions/region.h"

/* An object's file as mapped, with its symbol table found. */
struct obj {
	struct obj *next;
	uintptr_t bias;
	const unsigned char *map;
	size_t size;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	char name[];
};

static struct obj *objs;	/* under the caller's lock (functions.c) */

/* The object holding an address: its load bias and file name ("" for the program). */
struct where {
	uintptr_t addr, bias;
	const char *name;
};

static int find_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct where *w = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr < lo + ph->p_memsz) {
			w->bias = info->dlpi_addr;
			w->name = info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

/* The symbol table of a mapped ELF file: .symtab, else .dynsym; bounds checked, as the file may be anything. */
static void obj_symbols(struct obj *o)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->map;
	const Elf64_Shdr *sh;

	if (o->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > o->size ||
	    (size_t)eh->e_shnum * sizeof(*sh) > o->size - eh->e_shoff)
		return;
	sh = (const Elf64_Shdr *)(o->map + eh->e_shoff);
	for (unsigned want = SHT_SYMTAB;; want = SHT_DYNSYM) {
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *s = &sh[i], *strs;

			if (s->sh_type != want || s->sh_link >= eh->e_shnum || s->sh_offset > o->size ||
			    s->sh_size > o->size - s->sh_offset)
				continue;
			strs = &sh[s->sh_link];
			if (strs->sh_offset > o->size || strs->sh_size > o->size - strs->sh_offset || !strs->sh_size ||
			    o->map[strs->sh_offset + strs->sh_size - 1] != '\0')
				continue;
			o->sym = (const Elf64_Sym *)(o->map + s->sh_offset);
			o->nsym = s->sh_size / sizeof(Elf64_Sym);
			o->str = (const char *)o->map + strs->sh_offset;
			o->size = strs->sh_size;	/* from here: the string table's size, for the names' bound */
			return;
		}
		if (want == SHT_DYNSYM)
			return;
	}
}

/* The object at w, mapped and its symbols found on its first function; NULL out of memory. */
static struct obj *obj_of(const struct where *w)
{
	const char *path = w->name && *w->name ? w->name : "/proc/self/exe";
	struct obj *o;
	struct stat st;
	int fd;

	for (o = objs; o; o = o->next)
		if (o->bias == w->bias && !strcmp(o->name, path))
			return o;
	if (!(o = calloc(1, sizeof(*o) + strlen(path) + 1)))
		return NULL;
	strcpy(o->name, path);
	o->bias = w->bias;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			o->map = m;
			o->size = (size_t)st.st_size;
			obj_symbols(o);
		}
	}
	if (fd >= 0)
		close(fd);
	o->next = objs;
	objs = o;
	return o;
}

/* The function symbol of o holding offset off, or NULL. */
static const char *symbol_at(const struct obj *o, uintptr_t off)
{
	for (size_t i = 0; i < o->nsym; i++) {
		const Elf64_Sym *s = &o->sym[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_name >= o->size || !s->st_value)
			continue;
		if (off == s->st_value || (off > s->st_value && off - s->st_value < s->st_size))
			return o->str + s->st_name;
	}
	return NULL;
}

/* name, demangled when it is C++'s and the C++ runtime is loaded, into buf (cut at its size). */
static void demangled(const char *name, char *buf, size_t size)
{
	typedef char *demangle_fn(const char *, char *, size_t *, int *);
	demangle_fn *d = name[0] == '_' && name[1] == 'Z' ? (demangle_fn *)dlsym(RTLD_DEFAULT, "__cxa_demangle") : NULL;
	int st = -1;
	char *dm = d ? d(name, NULL, NULL, &st) : NULL;

	snprintf(buf, size, "%s", dm && st == 0 ? dm : name);
	free(dm);
}

void pmu__fn_name(void *fn, char *buf, size_t size)
{
	struct where w = { (uintptr_t)fn, 0, NULL };
	const struct obj *o = NULL;
	const char *sym = NULL, *base;

	if (dl_iterate_phdr(find_obj, &w) && (o = obj_of(&w)))
		sym = symbol_at(o, w.addr - w.bias);
	if (sym && *sym) {
		demangled(sym, buf, size);
	} else {	/* no symbol: the object and the offset, as perf shows them */
		base = o ? strrchr(o->name, '/') : NULL;
		snprintf(buf, size, "%s+0x%" PRIxPTR, base ? base + 1 : o ? o->name : "?", w.addr - w.bias);
	}
	if (strlen(buf) >= PMU_REGION_NAME - 1)	/* a region's name is at most 127 bytes: cut, and said so */
		snprintf(buf + PMU_REGION_NAME - 20, 20, "...#%" PRIxPTR, (uintptr_t)fn & 0xffffffff);
}

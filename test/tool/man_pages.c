/* SPDX-License-Identifier: MIT */
/*
 * The exports, the header and the manual agree, each way:
 *  - the functions of src/libpmu.map's global sections are those the
 *    installed headers (include/pmu.h and include/pmu/'s) declare, without
 *    static: the map and the headers' declarations are parsed (comments
 *    and the preprocessor's lines left out), never searched for a substring;
 *  - each exported function has a manual page man/NAME.3 (a page of its
 *    own, or a ".so" to the page that documents it, whose NAME section
 *    lists the function), and each man/NAME.3 is of a function the headers
 *    declare (exported, or static inline as pmu_counter_read).
 * Paths are relative to the repository root, where the tests run.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define MAP "src/libpmu.map"
#define HEADER "include/pmu.h"
#define HEADER_DIR "include/pmu"
#define MAX_NAMES 512

/* Function names found, and whether each is static (inline in the header). */
struct names {
	int n;
	char *name[MAX_NAMES];
	bool is_static[MAX_NAMES];
};

static int find(const struct names *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name))
			return i;
	return -1;
}

static void add(struct names *t, const char *name, size_t len, bool is_static)
{
	char *s = strndup(name, len);

	CHECK_MSG(t->n < MAX_NAMES, "more than %d names", MAX_NAMES);
	if (!s || t->n >= MAX_NAMES || find(t, s) >= 0) {
		free(s);
		return;
	}
	t->is_static[t->n] = is_static;
	t->name[t->n++] = s;
}

static void names_free(struct names *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->name[i]);
	t->n = 0;
}

/* The whole file, NUL-terminated; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *b = realloc(buf, cap + 65536);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* s contains name as a whole identifier (pmu_read does not match pmu_read_full). */
static bool mentions(const char *s, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = s; (p = strstr(p, name)); p++)
		if ((p == s || !ident_char(p[-1])) && !ident_char(p[len]))
			return true;
	return false;
}

/* Whether only blanks precede p on its line. */
static bool line_start(const char *s, const char *p)
{
	while (p > s && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	return p == s || p[-1] == '\n';
}

/*
 * Blanks out C comments, and '#' comments (version scripts) or, in C (c
 * true), // comments and preprocessor lines with their continuations.
 */
static void strip_comments(char *s, bool c)
{
	for (char *p = s; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			char *end = e ? e + 2 : p + strlen(p);

			memset(p, ' ', (size_t)(end - p));
			p = end - 1;
		} else if ((!c && *p == '#') || (c && p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				*p++ = ' ';
			if (!*p)
				break;
		} else if (c && *p == '#' && line_start(s, p)) {
			/* a directive: to the end of the line, continued by a backslash */
			for (char prev = 0; *p && (*p != '\n' || prev == '\\'); p++) {
				prev = *p;
				*p = *p == '\n' ? '\n' : ' ';
			}
			if (!*p)
				break;
		}
	}
}

/* Blanks out every __attribute__((...)), whose parentheses would look like a parameter list. */
static void strip_attributes(char *s)
{
	for (char *p = s; (p = strstr(p, "__attribute__"));) {
		char *q = p + strlen("__attribute__");
		int depth = 0;

		while (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		do {
			if (*q == '(')
				depth++;
			else if (*q == ')')
				depth--;
			q++;
		} while (*q && depth > 0);
		memset(p, ' ', (size_t)(q - p));
		p = q;
	}
}

/*
 * The declaration [start, end) (text up to a ';' or '{' at file scope):
 * when it has a '(' and is no typedef, the identifier before its first '('
 * is a function's name, added to t.
 */
static void declaration(const char *start, const char *end, struct names *t)
{
	const char *paren = memchr(start, '(', (size_t)(end - start)), *e, *b, *st;

	start += strspn(start, " \t\n");
	if (!paren || paren < start || !strncmp(start, "typedef", 7))
		return;
	for (e = paren; e > start && isspace((unsigned char)e[-1]); e--)
		;
	for (b = e; b > start && (isalnum((unsigned char)b[-1]) || b[-1] == '_'); b--)
		;
	st = strstr(start, "static");
	if (e > b)
		add(t, b, (size_t)(e - b), st && st < b);
}

/*
 * The functions a header declares or defines at file scope, into t. Bodies
 * of functions, structs and enums are skipped; extern "C" blocks are looked
 * into. s: comments, preprocessor lines and attributes already blanked.
 */
static void header_names(const char *s, struct names *t)
{
	const char *start = s;
	int depth = 0, open_c = 0;

	for (const char *p = s; *p; p++) {
		if (depth == 0 && !strncmp(p, "extern \"C\"", 10)) {
			const char *q = p + 10;

			q += strspn(q, " \t\n");
			if (*q == '{') {
				open_c++;
				p = q;
				start = p + 1;
				continue;
			}
		}
		if (*p == '{') {
			if (depth++ == 0)
				declaration(start, p, t);
		} else if (*p == '}') {
			if (depth > 0)
				depth--;
			else if (open_c > 0)
				open_c--;	/* the end of extern "C" */
			if (depth == 0)
				start = p + 1;
		} else if (*p == ';' && depth == 0) {
			declaration(start, p, t);
			start = p + 1;
		}
	}
}

/* Reads header path (comments, directives and attributes blanked) into t; false when it cannot be read. */
static bool read_header(const char *path, struct names *t)
{
	char *s = slurp(path);

	if (!s)
		return false;
	strip_comments(s, true);
	strip_attributes(s);
	header_names(s, t);
	free(s);
	return true;
}

/*
 * The names of every global section of the map (one per version node), in
 * names[]; returns how many, or -1 when the map has no "global:" section.
 */
static int map_names(char *map, char **names, int max)
{
	char *p = map;
	int n = 0, sections = 0;

	while ((p = strstr(p, "global:"))) {
		sections++;
		p += strlen("global:");
		for (;;) {
			char *start;

			while (*p && (isspace((unsigned char)*p) || *p == ';'))
				p++;
			if (!*p || *p == '}')
				break;
			start = p;
			while (*p && !isspace((unsigned char)*p) && *p != ';' && *p != '}')
				p++;
			if (p - start == 6 && !strncmp(start, "local:", 6))
				break;
			if (n < max)
				names[n++] = strndup(start, (size_t)(p - start));
		}
	}
	return sections ? n : -1;
}

/* The text of the page's NAME section, in out. */
static void name_section(const char *page, char *out, size_t size)
{
	const char *s = strstr(page, "\n.SH NAME");
	const char *e;
	size_t len;

	out[0] = '\0';
	if (!s)
		return;
	s = strchr(s + 1, '\n');
	if (!s)
		return;
	e = strstr(s, "\n.SH");
	len = e ? (size_t)(e - s) : strlen(s);
	if (len >= size)
		len = size - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/*
 * Checks man/NAME.3: it follows ".so man3/X.3" to man/X.3 (as installed
 * pages would to MANDIR/man3/X.3), then wants .TH and NAME listing the function.
 */
static void check_page(const char *name)
{
	char path[512], names[4096];
	char *page;
	int hops;

	snprintf(path, sizeof(path), "man/%s.3", name);
	page = slurp(path);
	CHECK_MSG(page, "%s is exported by %s but has no manual page %s", name, MAP, path);
	for (hops = 0; page && hops < 4 && !strncmp(page, ".so ", 4); hops++) {
		char target[256];
		const char *base;

		if (sscanf(page + 4, "%255s", target) != 1)
			break;
		base = strrchr(target, '/');
		snprintf(path, sizeof(path), "man/%s", base ? base + 1 : target);
		free(page);
		page = slurp(path);
		CHECK_MSG(page, "%s: man/%s.3 refers to %s, which is missing", name, name, target);
	}
	if (!page)
		return;
	CHECK_MSG(strncmp(page, ".so ", 4), "%s: man/%s.3: too many .so hops", name, name);
	CHECK_MSG(strstr(page, "\n.TH ") || !strncmp(page, ".TH ", 4), "%s: %s has no .TH line", name, path);
	name_section(page, names, sizeof(names));
	CHECK_MSG(mentions(names, name), "%s: the NAME section of %s does not list it", name, path);
	free(page);
}

/* The parser on a header of its own: a function in a comment, a macro or a struct is none. */
static void parser_check(void)
{
	char text[] = "/* int pmu_in_comment(void); */\n// int pmu_in_line_comment(void);\n"
		      "#define PMU_MACRO(x) pmu_in_macro(x)\n#define PMU_LONG(x) \\\n\tpmu_in_continuation(x)\n"
		      "struct pmu_s { int (*pmu_member)(void); };\ntypedef int (*pmu_type)(int);\n"
		      "extern \"C\" {\nconst char *pmu_decl(const struct pmu_s *s,\n\tint (*cb)(int));\n"
		      "static inline __attribute__((always_inline)) int\npmu_inline(void)\n{ return pmu_called(); }\n}\n";
	struct names t = { 0 };

	strip_comments(text, true);
	strip_attributes(text);
	header_names(text, &t);
	CHECK_MSG(t.n == 2 && find(&t, "pmu_decl") >= 0 && !t.is_static[find(&t, "pmu_decl")] &&
		  find(&t, "pmu_inline") >= 0 && t.is_static[find(&t, "pmu_inline")],
		  "the header parser found %d functions (%s, %s): want pmu_decl and static pmu_inline", t.n,
		  t.n > 0 ? t.name[0] : "", t.n > 1 ? t.name[1] : "");
	names_free(&t);
}

int main(void)
{
	char *raw[MAX_NAMES], path[512];
	struct names map = { 0 }, hdr = { 0 };
	char *text = slurp(MAP);
	int n, documented = 0, exported = 0, pages = 0;
	struct dirent *de;
	DIR *d;

	if (!text)
		T_SKIP("%s not found: run from the repository root (the sources are not there, "
		       "e.g. in the arm64 initramfs)", MAP);
	parser_check();
	strip_comments(text, false);
	n = map_names(text, raw, MAX_NAMES);
	CHECK_MSG(n > 0, "%s: no names in a \"global:\" section", MAP);
	for (int i = 0; i < n; i++) {
		/* A pattern exports names the test cannot enumerate. */
		CHECK_MSG(!strchr(raw[i], '*') && !strchr(raw[i], '?'), "%s: pattern \"%s\" in a global section",
			  MAP, raw[i]);
		CHECK_MSG(find(&map, raw[i]) < 0, "%s: %s exported twice", MAP, raw[i]);
		add(&map, raw[i], strlen(raw[i]), false);
		free(raw[i]);
	}
	free(text);

	CHECK_MSG(read_header(HEADER, &hdr), "%s not found next to %s", HEADER, MAP);
	d = opendir(HEADER_DIR);
	CHECK_MSG(d, "%s: cannot be read", HEADER_DIR);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 3 || strcmp(de->d_name + len - 2, ".h"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", HEADER_DIR, de->d_name);
		CHECK_MSG(read_header(path, &hdr), "%s cannot be read", path);
	}
	if (d)
		closedir(d);

	/* map -> header and manual */
	for (int i = 0; i < map.n; i++) {
		int h = find(&hdr, map.name[i]);

		CHECK_MSG(h >= 0, "%s is exported by %s but no installed header declares it", map.name[i], MAP);
		CHECK_MSG(h < 0 || !hdr.is_static[h], "%s is exported by %s but the header defines it static",
			  map.name[i], MAP);
		check_page(map.name[i]);
		documented++;
	}
	/* header -> map */
	for (int i = 0; i < hdr.n; i++) {
		if (hdr.is_static[i])
			continue;
		exported++;
		CHECK_MSG(find(&map, hdr.name[i]) >= 0, "%s is declared by the installed headers but %s does not "
			  "export it", hdr.name[i], MAP);
	}
	/* manual -> header */
	d = opendir("man");
	CHECK_MSG(d, "man: cannot be read");
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 3 || strcmp(de->d_name + len - 2, ".3"))
			continue;
		pages++;
		snprintf(path, sizeof(path), "%.*s", (int)(len - 2), de->d_name);
		CHECK_MSG(find(&hdr, path) >= 0, "man/%s documents %s, which no installed header declares",
			  de->d_name, path);
	}
	if (d)
		closedir(d);
	printf("%d exported functions checked, %d declared, %d man/*.3 pages\n", documented, exported, pages);
	names_free(&map);
	names_free(&hdr);
	T_DONE();
}

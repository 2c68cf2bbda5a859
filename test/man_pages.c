/* SPDX-License-Identifier: MIT */
/*
 * Every function exported by src/libpmu.map has a manual page man/NAME.3
 * (a page of its own, a link, or a ".so" to the page that documents it,
 * whose NAME section lists the function) and is in include/pmu.h.
 * Paths are relative to the repository root, where the tests run.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define MAP "src/libpmu.map"
#define HEADER "include/pmu.h"
#define MAX_NAMES 512

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

/* Blanks out C comments and '#' comments, which version scripts may hold. */
static void strip_comments(char *s)
{
	for (char *p = s; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			char *end = e ? e + 2 : p + strlen(p);

			memset(p, ' ', (size_t)(end - p));
			p = end - 1;
		} else if (*p == '#') {
			while (*p && *p != '\n')
				*p++ = ' ';
			if (!*p)
				break;
		}
	}
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

int main(void)
{
	char *names[MAX_NAMES];
	char *map = slurp(MAP), *header;
	int n, documented = 0;

	if (!map)
		T_SKIP("%s not found: run from the repository root (the sources are not there, "
		       "e.g. in the arm64 initramfs)", MAP);
	header = slurp(HEADER);
	CHECK_MSG(header, "%s not found next to %s", HEADER, MAP);
	strip_comments(map);
	n = map_names(map, names, MAX_NAMES);
	CHECK_MSG(n > 0, "%s: no names in a \"global:\" section", MAP);
	for (int i = 0; i < n; i++) {
		if (strchr(names[i], '*') || strchr(names[i], '?')) {
			/* A pattern exports names the test cannot enumerate. */
			CHECK_MSG(0, "%s: pattern \"%s\" in the global section", MAP, names[i]);
			free(names[i]);
			continue;
		}
		check_page(names[i]);
		if (header)
			CHECK_MSG(mentions(header, names[i]), "%s is exported by %s but %s does not mention it",
				  names[i], MAP, HEADER);
		documented++;
		free(names[i]);
	}
	printf("%d exported functions checked\n", documented);
	free(map);
	free(header);
	T_DONE();
}

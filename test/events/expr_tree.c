/* SPDX-License-Identifier: MIT */
/*
 * Every MetricExpr of a perf pmu-events/arch tree (Linux 6.1's: 3,815) parses,
 * or is refused for a reason this test knows; each that parses lists its
 * events and evaluates (events given made-up counts, references to the
 * metrics of its own directory followed) without a crash or a cycle.
 *
 * The kernel's JSON files are not shipped: the tree is $PMU_PERF_EVENTS_DIR
 * (a pmu-events directory or its arch/), else a cache extracted once from
 * Debian's /usr/src/linux-source-6.1.tar.xz into ~/.cache/libpmu-perf-events
 * (made aside and renamed into place, so that runs at once are safe).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"
#include "base/internal.h"
#include "parse/expr.h"

#define TARBALL "/usr/src/linux-source-6.1.tar.xz"
#define TAR_ARCH "linux-source-6.1/tools/perf/pmu-events/arch"
#define LINUX61_METRICS 3815

struct metric {
	char *file, *name, *expr;
	unsigned line;
	const char *dir;	/* file's directory: the metrics a reference may name */
	size_t dir_len;
	size_t lo, hi;		/* after sorting: that directory's metrics, [lo, hi) */
	struct pmu__expr *tree;
};

static struct metric *metrics;
static size_t nmetrics, cap, nfiles;

/* ---- finding the tree ---- */

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st, (void)type, (void)f;
	return remove(p);
}

/* tar of the tarball's arch tree into dir/arch: 0 or a reason in why. */
static int extract(const char *dir, char *why, size_t size)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execlp("tar", "tar", "-xJf", TARBALL, "-C", dir, "--strip-components=4", TAR_ARCH, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, size, "tar -xJf %s failed (exit %d)", TARBALL,
			 pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	return 0;
}

/* The arch directory to read into out, or a reason to skip in why. */
static int find_tree(char *out, size_t size, char *why, size_t wsize, bool *is61)
{
	const char *env = getenv("PMU_PERF_EVENTS_DIR"), *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[4000], dir[4100], tmp[4200];

	*is61 = false;
	if (env && *env) {
		snprintf(out, size, "%s/arch", env);
		if (is_dir(out))
			return 0;
		snprintf(out, size, "%s", env);
		if (is_dir(out))
			return 0;
		snprintf(why, wsize, "PMU_PERF_EVENTS_DIR=%s is no directory", env);
		return -1;
	}
	if (cache && *cache)
		snprintf(base, sizeof(base), "%s", cache);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s%s.cache", home, home[strlen(home) - 1] == '/' ? "" : "/");
	else {
		snprintf(why, wsize, "no PMU_PERF_EVENTS_DIR, and no HOME for a cache");
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/libpmu-perf-events", base);
	snprintf(out, size, "%s/arch", dir);
	*is61 = true;
	if (is_dir(out))
		return 0;
	if (access(TARBALL, R_OK)) {
		snprintf(why, wsize, "no PMU_PERF_EVENTS_DIR, no %s, and no %s (apt install linux-source-6.1)",
			 dir, TARBALL);
		return -1;
	}
	mkdir(base, 0755);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		snprintf(why, wsize, "cannot make %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (extract(tmp, why, wsize)) {
		nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		return -1;
	}
	chmod(tmp, 0755);
	/* another run may have put its copy there first: then keep that one */
	if (rename(tmp, dir)) {
		int err = errno;

		nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		if (!is_dir(out)) {
			snprintf(why, wsize, "cannot rename into %s: %s", dir, strerror(err));
			return -1;
		}
		return 0;
	}
	printf("extracted %s from %s\n", out, TARBALL);
	return 0;
}

/* ---- MetricExpr strings from a JSON file ---- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		char *b = realloc(buf, n + 65536 + 1);

		if (!b) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = b;
		got = fread(buf + n, 1, 65536, f);
		n += got;
		if (got < 65536)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The JSON string value of the key at p ("Key" : "value"), decoded; NULL if it is none. */
static char *string_after(const char *p, const char *key)
{
	size_t n = 0;
	char *out;

	p += strlen(key);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')
		p++;
	if (*p++ != '"')
		return NULL;
	out = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		switch (*++p) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'u': {
			unsigned v = 0;

			if (sscanf(p + 1, "%4x", &v) != 1 || v > 0x7f) {
				free(out);
				return NULL;	/* the files have no such escape */
			}
			out[n++] = (char)v;
			p += 4;
			break;
		}
		case '\0':
			free(out);
			return NULL;
		default: out[n++] = *p;
		}
	}
	out[n] = '\0';
	return out;
}

static int add_file(const char *path, const struct stat *st, int type, struct FTW *f)
{
	size_t len = strlen(path);
	char *text;

	(void)st, (void)f;
	if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".json"))
		return 0;
	text = read_all(path);
	if (!text) {
		fprintf(stderr, "%s: cannot read\n", path);
		t_failures++;
		return 0;
	}
	nfiles++;
	const char *counted = text;
	unsigned line = 1;

	for (const char *p = text; (p = strstr(p, "\"MetricExpr\"")); p++) {
		const char *open = p, *close = strchr(p, '}'), *nm;
		struct metric *m;

		while (open > text && *open != '{')
			open--;
		for (; counted < p; counted++)
			line += *counted == '\n';
		if (nmetrics == cap) {
			cap = cap ? 2 * cap : 1024;
			metrics = realloc(metrics, cap * sizeof(*metrics));
			if (!metrics)
				abort();
		}
		m = &metrics[nmetrics++];
		*m = (struct metric){ .file = strdup(path), .line = line };
		m->expr = string_after(p, "\"MetricExpr\"");
		/* its name: the MetricName in the same object */
		nm = strstr(open, "\"MetricName\"");
		if (nm && (!close || nm < close))
			m->name = string_after(nm, "\"MetricName\"");
		if (!m->name)
			m->name = strdup("(no name)");
		m->dir = m->file;
		m->dir_len = strrchr(m->file, '/') - m->file;
		if (!m->expr) {
			fprintf(stderr, "%s:%u: MetricExpr is no JSON string this test reads\n", path, line);
			t_failures++;
		}
	}
	free(text);
	return 0;
}

static int dir_cmp(const struct metric *x, const struct metric *y)
{
	size_t n = x->dir_len < y->dir_len ? x->dir_len : y->dir_len;
	int c = strncmp(x->dir, y->dir, n);

	return c ? c : (x->dir_len > y->dir_len) - (x->dir_len < y->dir_len);
}

/* By directory, then file and line: a directory's metrics together. */
static int by_file(const void *a, const void *b)
{
	const struct metric *x = a, *y = b;
	int c = dir_cmp(x, y);

	if (!c)
		c = strcmp(x->file, y->file);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* ---- the environment: made-up counts, fixed literals, references within a directory ---- */

static const struct metric *current;

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	uint32_t h = 2166136261u;

	(void)ctx;
	for (const char *s = id; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	*out = source_count ? 1 : 1 + h % 100000;
	return 0;
}

static int literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	static const double v[PMU_EXPR_NLITS] = {
		[PMU_EXPR_SMT_ON] = 1, [PMU_EXPR_NUM_CPUS] = 8, [PMU_EXPR_NUM_CORES] = 4,
		[PMU_EXPR_NUM_DIES] = 1, [PMU_EXPR_NUM_PACKAGES] = 1, [PMU_EXPR_CORE_WIDE] = 1,
		[PMU_EXPR_SYSTEM_TSC_FREQ] = 2e9, [PMU_EXPR_SLOTS] = 6,
	};

	(void)ctx;
	*out = v[lit];
	return 0;
}

/* perf 6.1 names a metric in any case. */
static const struct pmu__expr *metric(void *ctx, const char *id)
{
	(void)ctx;
	for (size_t i = current->lo; i < current->hi; i++)
		if (metrics[i].tree && !strcasecmp(metrics[i].name, id))
			return metrics[i].tree;
	return NULL;
}

static const struct pmu__expr_env env = { value, literal, metric, NULL };

/* ---- the reasons a refusal may have ---- */

static const char *const known[] = {
	NULL,	/* none yet: the 6.1 tree parses whole */
};

static bool explained(const char *msg)
{
	for (size_t i = 0; known[i]; i++)
		if (strstr(msg, known[i]))
			return true;
	return false;
}

int main(void)
{
	char arch[4200], why[4400];
	size_t parsed = 0, refused = 0, listed = 0, evaluated = 0, nan = 0, divzero = 0, refs = 0, maxlen = 0, cycles = 0;
	bool is61;

	if (find_tree(arch, sizeof(arch), why, sizeof(why), &is61))
		T_SKIP("%s", why);
	if (nftw(arch, add_file, 16, FTW_PHYS))
		T_SKIP("cannot walk %s: %s", arch, strerror(errno));
	qsort(metrics, nmetrics, sizeof(*metrics), by_file);
	for (size_t i = 0, lo = 0; i < nmetrics; i++) {
		if (i && dir_cmp(&metrics[i - 1], &metrics[i]))
			lo = i;
		metrics[i].lo = lo;
	}
	for (size_t i = nmetrics, hi = nmetrics; i-- > 0;) {
		metrics[i].hi = hi;
		if (i && dir_cmp(&metrics[i - 1], &metrics[i]))
			hi = i;
	}

	for (size_t i = 0; i < nmetrics; i++) {
		struct metric *m = &metrics[i];
		int rc;

		if (!m->expr)
			continue;
		if (strlen(m->expr) > maxlen)
			maxlen = strlen(m->expr);
		rc = pmu__expr_parse(m->expr, &m->tree);
		if (!rc) {
			parsed++;
			for (unsigned k = 0; k < pmu__expr_nids(m->tree); k++)
				CHECK(pmu__expr_id(m->tree, k)[0] != '\0');
			continue;
		}
		refused++;
		CHECK_MSG(rc == -EINVAL && strstr(pmu_errmsg(), "column "), "%s:%u %s: %d %s",
			  m->file, m->line, m->name, rc, pmu_errmsg());
		printf("refused: %s:%u %s: %s\n", m->file + strlen(arch) + 1, m->line, m->name, pmu_errmsg());
		CHECK_MSG(explained(pmu_errmsg()), "%s:%u %s: refused for an unknown reason", m->file, m->line, m->name);
	}
	/* then with every metric of the tree parsed, their events and values */
	for (size_t i = 0; i < nmetrics; i++) {
		struct metric *m = &metrics[i];
		const char **ids;
		unsigned n;
		double v;
		int rc;

		if (!m->tree)
			continue;
		current = m;
		rc = pmu__expr_events(m->tree, &env, &ids, &n);
		/* perf's own test files (arch/test) hold cycles on purpose, for its check of them */
		if (rc == -ELOOP && strstr(m->file + strlen(arch), "/test/")) {
			printf("cycle, as meant: %s:%u %s: %s\n", m->file + strlen(arch) + 1, m->line, m->name,
			       pmu_errmsg());
			cycles++;
			CHECK(pmu__expr_eval(m->tree, &env, &v) == -ELOOP);
			continue;
		}
		CHECK_MSG(rc == 0, "%s:%u %s: events: %s", m->file, m->line, m->name, pmu_errmsg());
		if (!rc) {
			listed++;
			free(ids);
		}
		for (unsigned k = 0; k < pmu__expr_nids(m->tree); k++)
			refs += metric(NULL, pmu__expr_id(m->tree, k)) != NULL;
		rc = pmu__expr_eval(m->tree, &env, &v);
		/* made-up counts may make a divisor 0 (a - b); a cycle or anything else fails */
		CHECK_MSG(rc == 0 || rc == -EDOM, "%s:%u %s: %s", m->file, m->line, m->name, pmu_errmsg());
		evaluated += rc == 0;
		divzero += rc == -EDOM;
		nan += !rc && isnan(v);
	}
	printf("%zu MetricExpr in %zu JSON files under %s (longest %zu bytes): %zu parsed, %zu refused\n",
	       nmetrics, nfiles, arch, maxlen, parsed, refused);
	printf("events listed for %zu, %zu cycles of references refused; %zu references to metrics followed; "
	       "evaluated %zu (%zu NaN), %zu divided by a zero of the made-up counts\n",
	       listed, cycles, refs, evaluated, nan, divzero);
	if (is61)
		CHECK_MSG(cycles == 3, "%zu cycles, Linux 6.1 has 3 in arch/test", cycles);
	CHECK(nmetrics > 0);
	if (is61)
		CHECK_MSG(nmetrics == LINUX61_METRICS, "%zu MetricExpr, Linux 6.1 has %d", nmetrics, LINUX61_METRICS);
	for (size_t i = 0; i < nmetrics; i++) {
		pmu__expr_free(metrics[i].tree);
		free(metrics[i].file);
		free(metrics[i].name);
		free(metrics[i].expr);
	}
	free(metrics);
	T_DONE();
}

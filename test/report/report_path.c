/* SPDX-License-Identifier: MIT */
/*
 * pmu_report_path(): the format from the extension, %p %h %r %% in the
 * name, the streams' names (stdout, stderr, -), and every bad input refused
 * with the input named and no file made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * The streams' names, as PMU_REPORT takes them: the report on the stream
 * (fd, redirected to a file here), no file of that name made in the cwd.
 */
static void stream_name(const char *dir, const char *name, FILE *stream, int fd)
{
	char path[600], file[700];
	int saved = dup(fd), f;

	snprintf(path, sizeof(path), "%s/%s.out", dir, name);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(saved >= 0 && f >= 0 && chdir(dir) == 0);
	fflush(stream);
	dup2(f, fd);
	CHECK_MSG(pmu_report_path(name, "csv") == 0, "%s: %s", name, pmu_errmsg());
	fflush(stream);
	dup2(saved, fd);
	close(saved);
	close(f);
	CHECK_MSG(!strncmp(slurp(path), "region,", 7), "%s: %s", name, slurp(path));
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	CHECK_MSG(access(file, F_OK) < 0, "%s: a file of that name was made", name);
	unlink(path);
	CHECK(chdir("/") == 0);
}

int main(void)
{
	char dir[] = "/tmp/pmu-report-path-XXXXXX", path[600], want[900], host[256] = "";
	struct stat st;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK(mkdtemp(dir) != NULL);
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
	unsetenv("SLURM_PROCID");

	/* Not set up yet: refused, naming the file, and nothing left behind. */
	snprintf(path, sizeof(path), "%s/early.csv", dir);
	CHECK_EQ(pmu_report_path(path, NULL), -EINVAL);
	CHECK_MSG(!strncmp(pmu_errmsg(), path, strlen(path)) && strstr(pmu_errmsg(), "pmu_thread_init"), "%s",
		  pmu_errmsg());

	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("r") == 0);
	CHECK(pmu_region_end("r") == 0);

	CHECK_EQ(pmu_report_path(NULL, NULL), -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "NULL"), "%s", pmu_errmsg());
	CHECK_EQ(pmu_report_path("", "csv"), -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "empty"), "%s", pmu_errmsg());
	/* A bad format: refused before the file is opened. */
	snprintf(path, sizeof(path), "%s/bad.csv", dir);
	CHECK_EQ(pmu_report_path(path, "xml"), -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "xml: unknown report format"), "%s", pmu_errmsg());
	CHECK(stat(path, &st) < 0 && errno == ENOENT);
	/* A directory that is not there. */
	snprintf(path, sizeof(path), "%s/none/r.csv", dir);
	CHECK_EQ(pmu_report_path(path, NULL), -ENOENT);
	CHECK_MSG(!strncmp(pmu_errmsg(), path, strlen(path)), "%s", pmu_errmsg());

	/* The format from the extension; an explicit one wins. */
	snprintf(path, sizeof(path), "%s/a.json", dir);
	CHECK_MSG(pmu_report_path(path, NULL) == 0, "%s", pmu_errmsg());
	CHECK_MSG(!strncmp(slurp(path), "{\n  \"library\": \"libpmu ", 23), "%s", slurp(path));
	CHECK_MSG(pmu_report_path(path, "csv") == 0, "%s", pmu_errmsg());
	CHECK_MSG(!strncmp(slurp(path), "region,", 7), "%s", slurp(path));
	unlink(path);

	stream_name(dir, "stdout", stdout, 1);
	stream_name(dir, "stderr", stderr, 2);
	stream_name(dir, "-", stderr, 2);

	/* %p, %h, %r (no rank in the environment: the pid), %% and a lone %. */
	CHECK(gethostname(host, sizeof(host)) == 0);
	host[sizeof(host) - 1] = '\0';
	for (char *h = host; *h; h++)
		if (*h == '/')
			*h = '_';
	snprintf(path, sizeof(path), "%s/%%p-%%h-%%r-%%%%-%%x.csv", dir);
	CHECK_MSG(pmu_report_path(path, NULL) == 0, "%s", pmu_errmsg());
	snprintf(want, sizeof(want), "%s/%d-%s-%d-%%-%%x.csv", dir, (int)getpid(), host, (int)getpid());
	CHECK_MSG(stat(want, &st) == 0 && !strncmp(slurp(want), "region,", 7), "%s", want);
	unlink(want);
	setenv("PMI_RANK", "7", 1);
	snprintf(path, sizeof(path), "%s/r%%r.json", dir);
	CHECK_MSG(pmu_report_path(path, NULL) == 0, "%s", pmu_errmsg());
	snprintf(want, sizeof(want), "%s/r7.json", dir);
	CHECK_MSG(stat(want, &st) == 0, "%s", want);
	unlink(want);

	pmu_thread_fini();
	CHECK(rmdir(dir) == 0);
	T_DONE();
}

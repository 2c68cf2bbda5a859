/* SPDX-License-Identifier: MIT */
/*
 * examples/metrics_server on loopback: GET /metrics while its two workers
 * are inside their regions answers 200 with Prometheus text whose calls
 * counter never goes down from one request to the next, and which promtool
 * check metrics accepts where it is installed; a request accepting OpenMetrics
 * (as Prometheus sends it) gets OpenMetrics; another path answers 404.
 * A bounded number of requests; the server is killed at the end.
 */
#include <arpa/inet.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static int port;

/* GET path from the server (with accept, an Accept header): the whole response, malloc'd, or NULL. */
static char *get_as(const char *path, const char *accept)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	if (!buf || s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		free(buf);
		if (s >= 0)
			close(s);
		return NULL;
	}
	dprintf(s, "GET %s HTTP/1.0\r\n%s%s%s\r\n", path, accept ? "Accept: " : "", accept ? accept : "",
		accept ? "\r\n" : "");
	while ((n = read(s, buf + len, cap - len - 1)) > 0)
		if ((len += (size_t)n) + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	close(s);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static char *get(const char *path)
{
	return get_as(path, NULL);
}

/* The total calls of region work in a response, or -1. */
static long long calls(const char *r)
{
	const char *p = r ? strstr(r, "pmu_region_calls_total{region=\"work\",thread=\"total\"} ") : NULL;

	return p ? atoll(strchr(p, '}') + 2) : -1;
}

int main(int argc, char **argv)
{
	char prog[PATH_MAX], copy[PATH_MAX], *r = NULL, *body;
	long long last = -1;
	FILE *out;
	int fd[2], st;
	pid_t pid;

	(void)argc;
	snprintf(copy, sizeof(copy), "%s", argv[0]);
	snprintf(prog, sizeof(prog), "%s/../examples/metrics_server", dirname(copy));
	if (access(prog, X_OK) != 0)
		T_SKIP("%s is not built (make examples)", prog);
	CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		execl(prog, prog, "0", "0", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	out = fdopen(fd[0], "r");
	CHECK(out && fscanf(out, "%d", &port) == 1 && port > 0);
	/* until the workers' region is in the figures (their first calls), then twice more */
	for (int i = 0, more = 3; i < 200 && more; i++) {
		free(r);
		r = get("/metrics");
		CHECK_MSG(r && !strncmp(r, "HTTP/1.0 200 OK\r\n", 17), "%s", r ? r : "no answer");
		if (calls(r) >= 0) {
			CHECK_MSG(calls(r) >= last, "calls went down: %lld after %lld", calls(r), last);
			last = calls(r);
			more--;
		} else {
			usleep(10000);
		}
	}
	CHECK_MSG(last > 0, "no calls of work in the answers: %s", r ? r : "");
	body = r ? strstr(r, "\r\n\r\n") : NULL;
	if (body && system("command -v promtool >/dev/null 2>&1") == 0) {
		FILE *p = popen("promtool check metrics", "w");

		CHECK(p && fputs(body + 4, p) >= 0);
		CHECK_MSG(p && pclose(p) == 0, "promtool check metrics refused the answer");
	} else {
		printf("promtool is not installed (Debian: prometheus): the answer is not checked by it\n");
	}
	free(r);
	/* Prometheus' own Accept header: OpenMetrics, said so, ended by # EOF */
	r = get_as("/metrics", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		   "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
	CHECK_MSG(r && strstr(r, "\r\nContent-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n") &&
		  strlen(r) > 6 && !strcmp(r + strlen(r) - 6, "# EOF\n") && calls(r) >= last, "%s", r ? r : "no answer");
	free(r);
	r = get("/nothing");
	CHECK_MSG(r && !strncmp(r, "HTTP/1.0 404 ", 13), "%s", r ? r : "no answer");
	free(r);
	kill(pid, SIGTERM);
	CHECK(waitpid(pid, &st, 0) == pid);
	if (out)
		fclose(out);
	T_DONE();
}

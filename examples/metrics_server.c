/* SPDX-License-Identifier: MIT */
/*
 * A server that serves its own region counts to Prometheus: worker threads
 * run a region per request of their own, and GET /metrics on 127.0.0.1
 * answers with pmu_report(f, "prometheus"), read while the workers count,
 * or with "openmetrics" when the request accepts it (Prometheus asks for
 * OpenMetrics first). Each answer's format is said on stderr.
 *   build: cc -pthread metrics_server.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./metrics_server [PORT [REQUESTS [EVENTS]]]
 * PORT 0 (the default) takes a free port; the port is printed first. It ends
 * after REQUESTS HTTP requests (0, the default: never).
 */
#define _GNU_SOURCE	/* strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmu.h>

static volatile int done;

/* A worker: "work" calls, each a little work, until the server ends. */
static void *worker(void *arg)
{
	volatile unsigned long x = (unsigned long)arg;

	while (!done) {
		pmu_region_begin("work");
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1;
		pmu_region_end("work");
	}
	return NULL;
}

/* One request on connection c: /metrics, or 404. */
static void serve(int c)
{
	char req[4096], *body = NULL;
	size_t len = 0;
	ssize_t n = read(c, req, sizeof(req) - 1);
	FILE *f = open_memstream(&body, &len);
	int ok, om;

	req[n > 0 ? n : 0] = '\0';
	om = strcasestr(req, "\naccept:") && strstr(req, "application/openmetrics-text");
	ok = f && !strncmp(req, "GET /metrics ", 13) && pmu_report(f, om ? "openmetrics" : "prometheus") == 0;
	if (f)
		fclose(f);
	if (ok)
		fprintf(stderr, "metrics_server: /metrics as %s\n", om ? "openmetrics" : "prometheus");
	if (ok)
		dprintf(c, "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n%s",
			om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4",
			len, body);
	else
		dprintf(c, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
	free(body);
	close(c);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	long requests = argc > 2 ? atol(argv[2]) : 0;
	socklen_t alen = sizeof(a);
	pthread_t t[2];
	int s;

	a.sin_port = htons((unsigned short)(argc > 1 ? atoi(argv[1]) : 0));
	if (pmu_thread_init(argc > 3 ? argv[3] : "task-clock,page-faults") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0) {
		perror("metrics_server: 127.0.0.1");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long r = 0; !requests || r < requests; r++) {
		int c = accept(s, NULL, NULL);

		if (c >= 0)
			serve(c);
	}
	done = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(s);
	pmu_thread_fini();
	return 0;
}

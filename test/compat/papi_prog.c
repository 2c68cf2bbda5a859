/*
 * A program instrumented with PAPI's high-level API, built once against
 * papi.h and run with the real libpapi and with libpmu-papi: nested regions,
 * PAPI_hl_read, two threads, and a region touching a known number of pages.
 *   papi_prog [pages]        normal run, exit 0
 *   papi_prog twice          ends a region twice; prints the return codes
 */
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long pages = 64;

static void touch(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	for (long i = 0; i < n; i++)
		p[i * psz] = 1;
	munmap(p, n * psz);
}

static int check(const char *what, int rc)
{
	if (rc != PAPI_OK)
		printf("%s: %d\n", what, rc);
	return rc;
}

static void *worker(void *arg)
{
	(void)arg;
	check("worker begin", PAPI_hl_region_begin("worker"));
	touch(pages);
	check("worker end", PAPI_hl_region_end("worker"));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "twice") == 0) {
		printf("begin %d\n", PAPI_hl_region_begin("r"));
		printf("end %d\n", PAPI_hl_region_end("r"));
		printf("end again %d\n", PAPI_hl_region_end("r"));
		printf("begin after %d\n", PAPI_hl_region_begin("s"));
		printf("end after %d\n", PAPI_hl_region_end("s"));
		printf("stop %d\n", PAPI_hl_stop());
		return 0;
	}
	if (argc > 1)
		pages = atol(argv[1]);
	touch(1);	/* the first call's setup is not in the first region's faults */
	check("outer begin", PAPI_hl_region_begin("outer"));
	for (int i = 0; i < 2; i++) {
		check("pages begin", PAPI_hl_region_begin("pages"));
		touch(pages);
		check("pages end", PAPI_hl_region_end("pages"));
	}
	check("read", PAPI_hl_read("outer"));
	touch(pages);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	check("outer end", PAPI_hl_region_end("outer"));
	return 0;
}

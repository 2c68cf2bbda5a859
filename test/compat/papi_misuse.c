/*
 * PAPI's high-level API misused, as PAPI 7.0 answers it (measured with
 * Debian's libpapi 7.0): an end before any begin is refused with PAPI_EMISC
 * and the rest works; a read of a region that is not open is ignored
 * (PAPI_OK); an end of a region that is not open is PAPI_EINVAL, and every
 * later call PAPI_EMISC. Prints each call's code.
 *   papi_misuse end-first|read-unmatched|end-unmatched
 */
#include <papi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int first = !strcmp(m, "end-first") ? PAPI_hl_region_end("x") : 0;
	int b1 = PAPI_hl_region_begin("a");
	int rd = !strcmp(m, "read-unmatched") ? PAPI_hl_read("not_open") : 0;
	int e1 = PAPI_hl_region_end("a");
	int b2 = PAPI_hl_region_begin("b");
	int eu = !strcmp(m, "end-unmatched") ? PAPI_hl_region_end("not_open") : 0;
	int e2 = PAPI_hl_region_end("b");

	printf("%s: %d %d %d %d %d %d %d\n", m, first, b1, rd, e1, b2, eu, e2);
	return 0;
}

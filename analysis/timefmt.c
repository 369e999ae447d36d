/*
 * timefmt.c - csh's `time` line, the format the seed experiments were
 * reported in, so that old and new figures read the same:
 *
 *	%Uu %Ss %E %P %X+%Dk %I+%Oio %Fpf+%Ww
 *	4.438u 3.049s 0:19.26 38.7% 0+0k 424+8202io 58pf+0w
 *
 * %E is minutes:seconds.hundredths, or hours:minutes:seconds past an hour.
 * The shared and unshared memory integrals (%X, %D) are not kept by Linux
 * or the BSDs' getrusage any more; they print as 0, as csh prints them.
 */
#include <stdio.h>

#include "analysis.h"

void
timefmt_csh(char *buf, size_t len, int64_t user_ns, int64_t sys_ns,
    int64_t elapsed_ns, uint64_t inblock, uint64_t oublock, uint64_t majflt,
    uint64_t nswap)
{
	int64_t cs = (elapsed_ns + 5000000) / 10000000; /* hundredths */
	char el[32];
	double pct = elapsed_ns > 0
	    ? 100.0 * (double)(user_ns + sys_ns) / (double)elapsed_ns
	    : 0.0;

	if (cs >= 360000)
		snprintf(el, sizeof(el), "%lld:%02lld:%02lld",
		    (long long)(cs / 360000), (long long)(cs / 6000 % 60),
		    (long long)(cs / 100 % 60));
	else
		snprintf(el, sizeof(el), "%lld:%02lld.%02lld",
		    (long long)(cs / 6000), (long long)(cs / 100 % 60),
		    (long long)(cs % 100));
	snprintf(buf, len,
	    "%lld.%03lldu %lld.%03llds %s %.1f%% 0+0k "
	    "%llu+%lluio %llupf+%lluw",
	    (long long)(user_ns / 1000000000),
	    (long long)(user_ns / 1000000 % 1000),
	    (long long)(sys_ns / 1000000000),
	    (long long)(sys_ns / 1000000 % 1000), el, pct,
	    (unsigned long long)inblock, (unsigned long long)oublock,
	    (unsigned long long)majflt, (unsigned long long)nswap);
}

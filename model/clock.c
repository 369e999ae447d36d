/*
 * clock.c - the monotonic clock in nanoseconds (clock.h).
 */
#include <time.h>

#include "clock.h"

int64_t
clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * looks.c - the looks of `ubcreplay vm -n MIN..MAX`: the runs a cell has
 * had at each, and the level each judges at.
 */
#include "runner.h"

/*
 * MIN runs, then half as many again each time (at least one more), up to
 * MAX. Each look judges the gates at 1 - alpha / nlook, so that over all
 * of them a wrong outcome stays below alpha / 2.
 */
double
runner_looks(int min, int max, int *look, int *nlook)
{
	int n = min;

	*nlook = 0;
	for (;;) {
		look[(*nlook)++] = n;
		if (n >= max || *nlook == RUNNER_MAX_LOOKS)
			break;
		n = n + (n + 1) / 2 < max ? n + (n + 1) / 2 : max;
	}
	look[*nlook - 1] = max;
	return 1 - 0.05 / *nlook;
}

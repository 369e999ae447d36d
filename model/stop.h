/*
 * stop.h - the signals that ask the tool to stop (SIGINT, SIGTERM, SIGHUP),
 * caught into one flag that every long wait looks at: the workload's
 * phases, the NFS capture, the guests. Nothing is done in the handler but
 * setting the flag; the code that waits cleans up and returns, and the
 * front end dies of the same signal once everything is put away.
 *
 *	stop_catch();			at the start of a command
 *	while (stop_signal() == 0)	poll(2) returns EINTR at the signal
 *		poll(...);
 *	stop_default();			in a child that should die of them
 *
 * The handlers are installed without SA_RESTART, so a blocking poll(2) or
 * read(2) returns EINTR and the waiter sees the flag at once.
 */
#ifndef UBC_STOP_H
#define UBC_STOP_H

#include <signal.h>

/* INT, TERM and HUP set the flag. */
void stop_catch(void);

/*
 * For a helper process that its parent ends with SIGTERM: TERM sets the
 * flag, and INT and HUP, which a terminal sends to the whole process group,
 * are ignored, so that the parent decides when the helper ends.
 */
void stop_catch_term(void);

/* INT, TERM and HUP back to their default action (die). */
void stop_default(void);

/* The signal that asked to stop, 0 while none came. */
int stop_signal(void);

/* The flag itself, for a loop that takes a pointer to one (nfs_capture). */
volatile sig_atomic_t *stop_flag(void);

#endif

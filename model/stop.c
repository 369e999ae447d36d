/*
 * stop.c - the stop signals caught into one flag (stop.h).
 */
#include <signal.h>
#include <string.h>

#include "stop.h"

static volatile sig_atomic_t stop_sig;

static void
on_signal(int sig)
{
	stop_sig = sig;
}

static void
set(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll must return EINTR so that the waiter notices. */
	sigaction(sig, &sa, NULL);
}

void
stop_catch(void)
{
	set(SIGINT, on_signal);
	set(SIGTERM, on_signal);
	set(SIGHUP, on_signal);
}

void
stop_catch_term(void)
{
	set(SIGINT, SIG_IGN);
	set(SIGTERM, on_signal);
	set(SIGHUP, SIG_IGN);
}

void
stop_default(void)
{
	set(SIGINT, SIG_DFL);
	set(SIGTERM, SIG_DFL);
	set(SIGHUP, SIG_DFL);
}

int
stop_signal(void)
{
	return stop_sig;
}

volatile sig_atomic_t *
stop_flag(void)
{
	return &stop_sig;
}

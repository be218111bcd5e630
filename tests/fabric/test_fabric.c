// SPDX-License-Identifier: MIT
/*
 * test_fabric: the pieces of the RDMA layer that need no device, each named
 * after what it guards:
 *
 *	a signal while the sink waits for rdma_cm connect requests
 *	         ends the wait (-EINTR) instead of a retry loop at 100% CPU;
 *	         the event channel is faked by a pipe that never speaks
 *	the sink ports' addresses of an ACCEPT are taken as numbers
 *	         only: a name is never resolved on the peer's word
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "rdma.h"
#include "window.h"

static void item13_numeric(void)
{
	struct sockaddr_storage ss;

	printf("AI_NUMERICHOST\n");
	CHECK(fab_sockaddr("10.77.0.1", 18515, &ss) == 0);
	CHECK(ss.ss_family == AF_INET);
	CHECK(fab_sockaddr("fd00::1", 18515, &ss) == 0);
	CHECK(ss.ss_family == AF_INET6);
	CHECK(fab_sockaddr("localhost", 18515, &ss) == -EADDRNOTAVAIL);
	CHECK(fab_sockaddr("sink.example", 18515, &ss) == -EADDRNOTAVAIL);
}

static void item7_signal(void)
{
	struct rdma_event_channel ech;
	struct fab_listener l = {.ech = &ech};
	struct rdma_cm_id *id = NULL;
	struct fab_hello h;
	int p[2];

	printf("-R signal during connect_workers\n");
	CHECK(pipe(p) == 0);
	ech.fd = p[0]; /* never readable: no event comes */
	nbw_signals_init();
	raise(SIGTERM); /* blocked: pending, as a Ctrl-C during the wait */
	alarm(10);	/* a wait that never ends fails the test */
	CHECK(fab_listener_next(&l, 60000, &id, &h) == -EINTR);
	alarm(0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	item13_numeric();
	item7_signal();
	return check_done("test_fabric");
}

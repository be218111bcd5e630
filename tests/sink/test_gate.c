// SPDX-License-Identifier: MIT
/*
 * test_gate: the sink's shared rdma_cm listener (nvme_write_bw_remote/sink/gate.c)
 * over the fake fabric (tests/remote/fake_fabric.c: the listener is a unix
 * socket, a connect request names its session and worker), no RDMA device:
 *
 * - a request of the session that asks is its own;
 * - a request of another admitted session is kept, unanswered, and handed to
 *   that session when it asks, without the listener being read again;
 * - requests of no admitted session, from outside --allow or without our
 *   private data are turned down (the asker hears "no");
 * - a deadline and a signal end the wait (-EINTR, not a
 *   retry for ever);
 * - gate_close turns down what is still kept.
 *
 * Each asker is a thread calling the fake's fab_conn_connect().
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gate.h"
#include "nbw.h"
#include "signals.h"
#include "timing.h"

#define MS 1000000ULL

static const char *const sink_addr[] = {"127.0.1.1"};
static unsigned port;

/* A source's worker asking for its RDMA connection. */
struct asker {
	uint64_t session;
	uint32_t worker;
	const char *src;
	pthread_t t;
	struct fab_conn c;
	char buf[64];
	atomic_bool answered;
	int rc;
};

static void *ask(void *arg)
{
	struct asker *a = arg;
	struct fab_hello h = {.session = a->session, .worker = a->worker};
	struct fab_link_opts lo = {0};

	a->rc = fab_conn_connect(&a->c, a->src, sink_addr[0], port, &h, 4, a->buf, sizeof(a->buf),
				 &lo, 5000);
	atomic_store(&a->answered, true);
	return NULL;
}

static void ask_start(struct asker *a, uint64_t session, uint32_t worker, const char *src)
{
	memset(a, 0, sizeof(*a));
	a->session = session;
	a->worker = worker;
	a->src = src;
	if (pthread_create(&a->t, NULL, ask, a))
		abort();
}

/* The asker's answer: 0 (accepted) or its -errno. */
static int ask_end(struct asker *a)
{
	pthread_join(a->t, NULL);
	fab_conn_close(&a->c);
	return a->rc;
}

/* gate_next for session within ms; the request, accepted (0) or the error. */
static int next_accept(struct gate *g, uint64_t session, int ms, struct fab_hello *h)
{
	struct rdma_cm_id *id;
	struct fab_conn c = {0};
	static char buf[64];
	int rc = gate_next(g, session, nbw_now_ns() + (uint64_t)ms * MS, &id, h);

	if (rc)
		return rc;
	rc = fab_conn_accept(&c, id, buf, sizeof(buf), 1000);
	fab_conn_close(&c);
	return rc ? 99 : 0;
}

/* Session 9's request read while session 7 asks: kept, then handed to 9. */
static void kept_for_its_session(struct gate *g)
{
	struct asker a, b;
	struct fab_hello h = {0};
	uint64_t t0;

	printf("a request of another admitted session is kept for it\n");
	ask_start(&a, 9, 2, "127.0.1.2");
	CHECK(next_accept(g, 7, 800, &h) == -ETIMEDOUT);
	CHECK(!atomic_load(&a.answered)); /* kept: not answered yet */
	ask_start(&b, 7, 1, "127.0.1.2");
	CHECK(next_accept(g, 7, 3000, &h) == 0);
	CHECK_U64(h.session, 7);
	CHECK_U64(h.worker, 1);
	CHECK(ask_end(&b) == 0);
	t0 = nbw_now_ns();
	CHECK(next_accept(g, 9, 3000, &h) == 0); /* from the table, at once */
	CHECK(nbw_now_ns() - t0 < 2000 * MS);
	CHECK_U64(h.session, 9);
	CHECK_U64(h.worker, 2);
	CHECK(ask_end(&a) == 0);
}

/* A request the gate turns down: the asker hears no, the session times out. */
static void turned_down(struct gate *g, const char *what, uint64_t session, const char *src)
{
	struct asker a;
	struct fab_hello h;
	uint64_t t0 = nbw_now_ns();

	printf("turned down: %s\n", what);
	ask_start(&a, session, 0, src);
	CHECK(next_accept(g, 7, 600, &h) == -ETIMEDOUT);
	CHECK(nbw_now_ns() - t0 < 5000 * MS); /* the deadline holds (a loaded machine: slack) */
	CHECK(ask_end(&a) == -ECONNREFUSED);
}

static void refusals(struct gate *g, struct options *o)
{
	char bad[64];
	struct asker a;
	struct fab_hello h;

	turned_down(g, "a session never admitted", 5, "127.0.1.2");
	o->sink.nallow = netaddr_parse_list("10.0.0.0/8", o->sink.allow, NETADDR_MAX_PREFIXES, bad,
					    sizeof(bad));
	CHECK(o->sink.nallow == 1);
	turned_down(g, "from outside --allow", 7, "127.0.1.2");
	o->sink.nallow = netaddr_parse_list("127.0.1.0/24", o->sink.allow, NETADDR_MAX_PREFIXES,
					    bad, sizeof(bad));
	printf("inside --allow: taken\n");
	ask_start(&a, 7, 4, "127.0.1.2");
	CHECK(next_accept(g, 7, 3000, &h) == 0);
	CHECK_U64(h.worker, 4);
	CHECK(ask_end(&a) == 0);
	o->sink.nallow = 0;
	/* The fake's "stranger": a connect request without our private data. */
	setenv("NBW_FAKE_FAULT", "stranger", 1);
	turned_down(g, "no private data of ours", 7, "127.0.1.2");
	unsetenv("NBW_FAKE_FAULT");
}

/* A signal ends the wait at once; gate_close turns down the request still kept. */
static void signal_and_close(struct gate *g)
{
	struct asker a;
	struct fab_hello h;
	uint64_t t0;

	printf("a signal ends the wait; close turns down what is kept\n");
	ask_start(&a, 9, 3, "127.0.1.2");
	CHECK(next_accept(g, 7, 800, &h) == -ETIMEDOUT); /* 9's request kept */
	raise(SIGINT);					 /* blocked: pending, taken by the gate */
	t0 = nbw_now_ns();
	CHECK(next_accept(g, 7, 10000, &h) == -EINTR);
	CHECK(nbw_now_ns() - t0 < 1000 * MS);
	CHECK(!atomic_load(&a.answered));
	gate_close(g);
	CHECK(ask_end(&a) == -ECONNREFUSED);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[64], sock[128];
	struct options o = {0};
	struct gate *g;
	int err = 0;

	nbw_set_prog("test_gate");
	nbw_signals_init();
	snprintf(dir, sizeof(dir), "%s/test_gate.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 99;
	setenv("NBW_FAKE_DIR", dir, 1);
	unsetenv("NBW_FAKE_FAULT");
	port = 4791; /* the fake's listener is a socket in dir: no clash with anyone's */
	g = gate_open(&o, sink_addr, 1, port, &err);
	CHECK(g != NULL && err == 0);
	if (!g)
		return check_done("test_gate");
	gate_expect(g, 7);
	gate_expect(g, 9);
	kept_for_its_session(g);
	refusals(g, &o);
	signal_and_close(g);
	snprintf(sock, sizeof(sock), "%s/cm-%s-%u", dir, sink_addr[0], port);
	unlink(sock);
	CHECK(rmdir(dir) == 0);
	return check_done("test_gate");
}

// SPDX-License-Identifier: MIT
/*
 * door.c: the sink's front door (see door.h): listening sockets, the
 * allow-list at accept, and a table of pending handshakes served together
 * with poll(), each a small state machine:
 *
 *	AUTH   wait for the source's AUTH (its nonce, whether it has a key);
 *	       answer with our nonce (a keyed sink drops a source without a key)
 *	PROOF  (with a key) wait for the source's proof; a wrong one is dropped,
 *	       a right one is answered with ours (the source checks it)
 *	HELLO  wait for the parameters: the guest is handed to the sink
 *
 * A stranger without the key learns a random nonce and nothing else.
 *
 * Anything else, in any state, and a handshake that is not done within
 * DOOR_HANDSHAKE_S, is dropped with one log line; the door keeps waiting.
 * Only an AUTH or a HELLO of its exact size is read before admission
 * (ctrl_step_allows()): a stranger cannot make the sink allocate more. One
 * address holds at most DOOR_MAX_PER_ADDR handshakes; when every place is
 * taken, the busiest address gives up its oldest idle one, so a crowd from
 * elsewhere does not push out a real source.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl_auth.h"
#include "door.h"
#include "nbw.h"
#include "netaddr.h"
#include "steps.h"
#include "timing.h"
#include "window.h"

#define POLL_SLICE_MS 200

enum pend_state { PEND_FREE, PEND_AUTH, PEND_PROOF, PEND_HELLO };

struct pending {
	enum pend_state st;
	int fd;
	char peer[64];
	uint64_t since, deadline;
	struct ctrl_inbox in;
	struct ctrl_auth_sink auth;
};

struct door {
	const struct options *o;
	int lfd[DOOR_MAX_ADDRS];
	int nlfd;
	char addr[DOOR_MAX_ADDRS][FAB_ADDR_LEN];
	const char *addrp[DOOR_MAX_ADDRS];
	int naddr; /* 0: every address */
	char where[DOOR_MAX_ADDRS * (FAB_ADDR_LEN + 2)];
	struct pending pend[DOOR_MAX_PENDING];
};

static bool has_key(const struct door *d)
{
	return d->o->key.len > 0;
}

/* The addresses to listen on: --bind, else the ports' own (deduplicated). */
static void choose_addrs(struct door *d, const struct fab_port *ports, int nports)
{
	int i, j;

	if (d->o->sink.bind) {
		if (strcmp(d->o->sink.bind, "any"))
			snprintf(d->addr[d->naddr++], FAB_ADDR_LEN, "%s", d->o->sink.bind);
		return;
	}
	for (i = 0; i < nports && d->naddr < DOOR_MAX_ADDRS; i++) {
		if (!ports[i].addr[0])
			continue;
		for (j = 0; j < d->naddr && strcmp(d->addr[j], ports[i].addr); j++)
			;
		if (j == d->naddr)
			snprintf(d->addr[d->naddr++], FAB_ADDR_LEN, "%s", ports[i].addr);
	}
}

static void describe_where(struct door *d)
{
	size_t off = 0;
	int i;

	if (!d->naddr) {
		snprintf(d->where, sizeof(d->where), "every address");
		return;
	}
	for (i = 0; i < d->naddr && off < sizeof(d->where); i++)
		off += (size_t)snprintf(d->where + off, sizeof(d->where) - off, "%s%s",
					i ? ", " : "", d->addr[i]);
}

struct door *door_open(const struct options *o, const struct fab_port *ports, int nports)
{
	struct door *d = nbw_zalloc(1, sizeof(*d));
	int i;

	if (!d)
		return NULL;
	d->o = o;
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		d->pend[i].fd = -1;
	choose_addrs(d, ports, nports);
	describe_where(d);
	for (i = 0; i < (d->naddr ? d->naddr : 1); i++) {
		d->addrp[i] = d->addr[i];
		d->lfd[i] = ctrl_listen(d->naddr ? d->addr[i] : NULL, o->port);
		if (d->lfd[i] < 0) {
			nbw_err("%s port %u: %s", d->naddr ? d->addr[i] : "listening on", o->port,
				ctrl_strerror(d->lfd[i]));
			door_close(d);
			return NULL;
		}
		d->nlfd++;
	}
	return d;
}

int door_addrs(const struct door *d, const char *const **addrs)
{
	*addrs = d->addrp;
	return d->naddr;
}

const char *door_where(const struct door *d)
{
	return d->where;
}

bool door_allows(const struct door *d, const struct sockaddr *sa)
{
	return !d->o->sink.nallow || netaddr_allowed(d->o->sink.allow, d->o->sink.nallow, sa);
}

static void pend_drop(struct pending *p, const char *why)
{
	nbw_err("%s: connection dropped: %s; still waiting", p->peer, why);
	close(p->fd);
	ctrl_inbox_reset(&p->in);
	p->fd = -1;
	p->st = PEND_FREE;
}

/* How many handshakes are pending from the address who. */
static int pend_count(const struct door *d, const char *who)
{
	int i, n = 0;

	for (i = 0; i < DOOR_MAX_PENDING; i++)
		n += d->pend[i].st != PEND_FREE && !strcmp(d->pend[i].peer, who);
	return n;
}

/* The handshake of address who to give up: its oldest idle one (no byte yet), else its oldest. */
static struct pending *pend_victim(struct door *d, const char *who)
{
	struct pending *v = NULL;
	int i;

	for (i = 0; i < DOOR_MAX_PENDING; i++) {
		struct pending *p = &d->pend[i];
		bool idle = p->st == PEND_AUTH && !p->in.hdr_got;

		if (p->st == PEND_FREE || strcmp(p->peer, who))
			continue;
		if (!v || (idle && !(v->st == PEND_AUTH && !v->in.hdr_got)) ||
		    (idle == (v->st == PEND_AUTH && !v->in.hdr_got) && p->since < v->since))
			v = p;
	}
	return v;
}

/*
 * A place for a new connection from who: a free one; past DOOR_MAX_PER_ADDR
 * from who, one of who's; when all are taken, one of the busiest address's.
 */
static struct pending *pend_slot(struct door *d, const char *who)
{
	const char *busiest = who;
	int i, most = 0;

	if (pend_count(d, who) >= DOOR_MAX_PER_ADDR) {
		struct pending *v = pend_victim(d, who);

		pend_drop(v, "too many handshakes from one address (its oldest idle one goes)");
		return v;
	}
	for (i = 0; i < DOOR_MAX_PENDING; i++) {
		int n;

		if (d->pend[i].st == PEND_FREE)
			return &d->pend[i];
		n = pend_count(d, d->pend[i].peer);
		if (n > most) {
			most = n;
			busiest = d->pend[i].peer;
		}
	}
	{
		struct pending *v = pend_victim(d, busiest);

		pend_drop(
			v,
			"too many handshakes at once (the busiest address's oldest idle one goes)");
		return v;
	}
}

/* Accept on listening socket lfd: outside --allow is closed before a byte is read. */
static void door_accept(struct door *d, int lfd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pending *p;
	char who[64];
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	netaddr_text((struct sockaddr *)&ss, who, sizeof(who));
	if (!door_allows(d, (struct sockaddr *)&ss)) {
		nbw_err("%s: not in --allow: closed", who);
		close(fd);
		return;
	}
	p = pend_slot(d, who);
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	snprintf(p->peer, sizeof(p->peer), "%s", who);
	p->since = nbw_now_ns();
	p->deadline = p->since + DOOR_HANDSHAKE_S * NBW_NSEC_PER_SEC;
	p->st = PEND_AUTH;
}

/* One whole message of a pending handshake. 1 a guest is ready, 0 go on, <0 drop. */
static int pend_step(struct door *d, struct pending *p, const char **why)
{
	int rc;

	if (p->st == PEND_HELLO && p->in.type == CTRL_HELLO)
		return 1;
	if (p->in.type != CTRL_AUTH || p->st == PEND_HELLO) {
		*why = p->in.type == CTRL_HELLO && has_key(d) ? "HELLO before the key was proved"
							      : "a message out of turn";
		return -EPROTO;
	}
	rc = ctrl_auth_sink_step(&p->auth, &d->o->key, p->fd, p->in.payload, p->in.len, why);
	if (!rc)
		p->st = p->auth.step == CTRL_STEP_PROOF ? PEND_PROOF : PEND_HELLO;
	return rc;
}

/* Read what p has; 1 a guest is ready in *g, 0 go on (or dropped). */
static int pend_read(struct door *d, struct pending *p, struct door_guest *g)
{
	static const unsigned phase[] = {[PEND_AUTH] = CTRL_STEP_AUTH,
					 [PEND_PROOF] = CTRL_STEP_PROOF,
					 [PEND_HELLO] = CTRL_STEP_HELLO};
	const char *why = NULL;
	int rc;

	p->in.allow = ctrl_step_allows(phase[p->st]);
	rc = ctrl_inbox_read(&p->in, p->fd);

	if (rc == 0)
		return 0;
	if (rc < 0) {
		if (rc == -EPROTONOSUPPORT) {
			struct ctrl_buf b;
			char msg[64];

			snprintf(msg, sizeof(msg), "sink speaks protocol version %d", CTRL_VERSION);
			ctrl_send_free(p->fd, &b, ctrl_encode_error(&b, msg), 200);
		}
		pend_drop(p, rc != -EBADMSG		? ctrl_strerror(rc)
			     : p->in.type != CTRL_HELLO ? "a message out of turn"
			     : has_key(d)		? "HELLO before the key was proved"
							: "HELLO before AUTH");
		return 0;
	}
	rc = pend_step(d, p, &why);
	if (rc == 1 && ctrl_decode_hello(p->in.payload, p->in.len, &g->hello)) {
		why = "malformed HELLO";
		rc = -EBADMSG;
	}
	if (rc < 0) {
		pend_drop(p, why);
		return 0;
	}
	ctrl_inbox_reset(&p->in);
	if (rc == 0)
		return 0;
	g->fd = p->fd;
	g->trusted = p->auth.trusted;
	snprintf(g->peer, sizeof(g->peer), "%s", p->peer);
	p->fd = -1;
	p->st = PEND_FREE;
	return 1;
}

/* Poll the listening sockets and the pending handshakes once. 1 a guest is ready. */
static int door_round(struct door *d, int ms, struct door_guest *g)
{
	struct pollfd pfd[DOOR_MAX_ADDRS + DOOR_MAX_PENDING];
	struct pending *who[DOOR_MAX_PENDING];
	uint64_t now;
	int i, n = 0, np = 0;

	for (i = 0; i < d->nlfd; i++)
		pfd[n++] = (struct pollfd){.fd = d->lfd[i], .events = POLLIN};
	for (i = 0; i < DOOR_MAX_PENDING; i++) {
		if (d->pend[i].st == PEND_FREE)
			continue;
		who[np++] = &d->pend[i];
		pfd[n++] = (struct pollfd){.fd = d->pend[i].fd, .events = POLLIN};
	}
	if (poll(pfd, (nfds_t)n, ms) < 0)
		return 0;
	for (i = 0; i < np; i++)
		if ((pfd[d->nlfd + i].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    pend_read(d, who[i], g))
			return 1;
	for (i = 0; i < d->nlfd; i++)
		if (pfd[i].revents & POLLIN)
			door_accept(d, d->lfd[i]);
	now = nbw_now_ns();
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st != PEND_FREE && now >= d->pend[i].deadline)
			pend_drop(&d->pend[i], "no complete HELLO within the handshake deadline");
	return 0;
}

int door_await(struct door *d, uint64_t deadline, struct door_guest *g)
{
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	for (;;) {
		uint64_t now = nbw_now_ns();
		int ms = POLL_SLICE_MS;

		if (nbw_interrupted())
			return -EINTR;
		if (deadline && now >= deadline)
			return -ETIMEDOUT;
		if (deadline && (deadline - now) / 1000000 < (uint64_t)ms)
			ms = (int)((deadline - now) / 1000000) + 1;
		if (door_round(d, ms, g))
			return 0;
	}
}

void door_refuse(struct door *d, struct door_guest *g, const char *why)
{
	struct ctrl_buf b;

	(void)d;
	if (g->trusted)
		ctrl_send_free(g->fd, &b, ctrl_encode_error(&b, why), 1000);
	nbw_err("%s: refused: %s; still waiting", g->peer, why);
	close(g->fd);
	g->fd = -1;
}

void door_close(struct door *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->nlfd; i++)
		close(d->lfd[i]);
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st != PEND_FREE) {
			close(d->pend[i].fd);
			ctrl_inbox_reset(&d->pend[i].in);
		}
	free(d);
}

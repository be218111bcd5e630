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
 * the table's "door" wait (model/waits.c: 5 s), is dropped; the door keeps
 * waiting. Drops are counted and said at most once a second for each reason
 * (door_said()), so a crowd cannot fill the log. Only an AUTH or a HELLO of
 * its exact size is read before admission (ctrl_step_allows()): a stranger
 * cannot make the sink allocate more.
 *
 * Places: one address holds at most DOOR_MAX_PER_ADDR handshakes, and when
 * every place is taken a new connection takes the place of the handshake
 * that got least far (no byte yet, then an AUTH without its next message),
 * of the busiest address, idle the longest. A handshake that proved the key
 * is never given up, nor one accepted in the same round (it has not been
 * read yet), nor one whose AUTH the door answered within DOOR_ANSWER_MS
 * (its next message, the proof or on an open sink the HELLO, is one round
 * trip away): with no place to give, the newcomer waits in the listen
 * backlog (CTRL_LISTEN_BACKLOG) or, when one address has too many, is
 * closed. Each round accepts as many as it has places for.
 *
 * So a stranger that speaks holds a place no longer than DOOR_ANSWER_MS
 * after the door answered its AUTH once the door is full (on an open sink
 * too: an AUTH without a key earns no more than one with a wrong one), and
 * the places turn over at DOOR_MAX_PENDING / DOOR_ANSWER_MS a second at the
 * least (512): a crowd that fills the listen backlog holds a real source
 * back about a second, well within its --timeout.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "waits.h"
#include "window.h"

#define POLL_SLICE_MS 200

enum pend_state { PEND_FREE, PEND_AUTH, PEND_PROOF, PEND_HELLO };

/* What giving a pending handshake up costs, least first. */
enum pend_worth {
	WORTH_IDLE,    /* not a byte since it was accepted */
	WORTH_TALKING, /* part of its AUTH, or its AUTH without the proof or (open sink) HELLO */
	WORTH_KEEP,    /* it proved the key: never given up for a newcomer */
};

struct pending {
	enum pend_state st;
	int fd;
	char peer[64];
	uint64_t since, deadline;
	uint64_t heard;	   /* its last byte (or its accept): idle since */
	uint64_t answered; /* when the door answered its AUTH */
	uint64_t round;	   /* the door's round that accepted it */
	struct ctrl_inbox in;
	struct ctrl_auth_sink auth;
};

/* How a turned-away connection is said. */
enum drop_style {
	DROP_DROPPED, /* "PEER: connection dropped: WHY; still waiting" */
	DROP_CLOSED,  /* "PEER: WHY: closed" (outside --allow, nothing read) */
	DROP_REFUSED, /* "PEER: refused: WHY; still waiting" (a HELLO the sink cannot take) */
};

/* One reason to turn a connection away: said at most once a second, the rest counted. */
struct drop_reason {
	char why[CTRL_MAX_STR]; /* "" unused */
	enum drop_style style;
	uint64_t said; /* when a line last said it (monotonic ns) */
	unsigned held; /* drops since, not said yet */
	char last[64]; /* the last one's address */
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
	uint64_t round; /* rounds served (door_round()) */
	struct drop_reason drops[DOOR_DROP_REASONS];
	uint64_t dropped; /* connections turned away in all */
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
		/* A round accepts until there is no one left: it must not block then. */
		fcntl(d->lfd[i], F_SETFL, fcntl(d->lfd[i], F_GETFL) | O_NONBLOCK);
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

/* Is this address allowed in (--allow)? */
static bool door_allows(const struct door *d, const struct sockaddr *sa)
{
	return !d->o->sink.nallow || netaddr_allowed(d->o->sink.allow, d->o->sink.nallow, sa);
}

/* ---- what the door says: each reason at most once a second ------------------------ */

/* The line of reason r: its last address, how many others, why. */
static void drop_say(struct drop_reason *r, uint64_t now)
{
	char others[48] = "";

	if (r->held > 1)
		snprintf(others, sizeof(others), " and %u others", r->held - 1);
	if (r->style == DROP_CLOSED)
		nbw_err("%s%s: %s: closed", r->last, others, r->why);
	else
		nbw_err("%s%s: %s: %s; still waiting", r->last, others,
			r->style == DROP_REFUSED ? "refused" : "connection dropped", r->why);
	r->held = 0;
	r->said = now;
}

/* The record of why (the last one takes what does not fit). */
static struct drop_reason *drop_reason(struct door *d, const char *why, enum drop_style style)
{
	int i;

	for (i = 0; i < DOOR_DROP_REASONS - 1; i++) {
		struct drop_reason *r = &d->drops[i];

		if (!r->why[0]) {
			snprintf(r->why, sizeof(r->why), "%s", why);
			r->style = style;
		}
		if (!strcmp(r->why, why) && r->style == style)
			return r;
	}
	if (!d->drops[i].why[0])
		snprintf(d->drops[i].why, sizeof(d->drops[i].why), "one of several other reasons");
	return &d->drops[i];
}

/*
 * A connection from peer turned away for why: counted; said now if its
 * reason was not said in the last second, else with the next line of that
 * reason (door_said()).
 */
static void door_drop_note(struct door *d, const char *peer, const char *why, enum drop_style style)
{
	struct drop_reason *r = drop_reason(d, why, style);
	uint64_t now = nbw_now_ns();

	d->dropped++;
	r->held++;
	snprintf(r->last, sizeof(r->last), "%s", peer);
	if (!r->said || now - r->said >= NBW_NSEC_PER_SEC)
		drop_say(r, now);
}

/* Say what was held back for a second or more (all of it: at_close). */
static void door_said(struct door *d, bool at_close)
{
	uint64_t now = nbw_now_ns();
	int i;

	for (i = 0; i < DOOR_DROP_REASONS; i++)
		if (d->drops[i].held && (at_close || now - d->drops[i].said >= NBW_NSEC_PER_SEC))
			drop_say(&d->drops[i], now);
}

/* ---- the places of the pending handshakes --------------------------------------- */

static void pend_drop(struct door *d, struct pending *p, const char *why)
{
	door_drop_note(d, p->peer, why, DROP_DROPPED);
	close(p->fd);
	ctrl_inbox_reset(&p->in);
	p->fd = -1;
	p->st = PEND_FREE;
}

/* An AUTH answered, its next message (the proof, or an open sink's HELLO) a round trip away. */
static bool pend_answered(const struct door *d, const struct pending *p)
{
	return p->st == PEND_PROOF || (p->st == PEND_HELLO && !has_key(d));
}

static enum pend_worth pend_worth(const struct door *d, const struct pending *p)
{
	if (p->st == PEND_HELLO && has_key(d))
		return WORTH_KEEP;
	return p->st == PEND_AUTH && !p->in.hdr_got ? WORTH_IDLE : WORTH_TALKING;
}

/* How many handshakes are pending from the address who. */
static int pend_count(const struct door *d, const char *who)
{
	int i, n = 0;

	for (i = 0; i < DOOR_MAX_PENDING; i++)
		n += d->pend[i].st != PEND_FREE && !strcmp(d->pend[i].peer, who);
	return n;
}

/*
 * May p give its place up to a newcomer (of this round)? Not when it
 * proved the key; not when it was accepted this round (it has not been read
 * yet); not within DOOR_ANSWER_MS of the door's answer to its AUTH (its
 * proof, or an open sink's HELLO, is a round trip away), however many
 * newcomers came meanwhile. Past that, a stranger that said AUTH and went
 * quiet holds its place no longer than one that never spoke.
 */
static bool pend_yields(const struct door *d, const struct pending *p)
{
	if (p->st == PEND_FREE || pend_worth(d, p) == WORTH_KEEP || p->round == d->round)
		return false;
	return !pend_answered(d, p) || nbw_now_ns() - p->answered >= DOOR_ANSWER_MS * 1000000ULL;
}

/*
 * Is a better victim than v (NULL: none yet) of n handshakes at its
 * address than v's vn? Least far first, then the busiest address, then idle
 * the longest.
 */
static bool pend_worse(const struct door *d, const struct pending *p, int n,
		       const struct pending *v, int vn)
{
	if (!v)
		return true;
	if (pend_worth(d, p) != pend_worth(d, v))
		return pend_worth(d, p) < pend_worth(d, v);
	if (n != vn)
		return n > vn;
	return p->heard < v->heard;
}

/* The handshake to give up for a newcomer: of the address who (NULL: of any); NULL if none may. */
static struct pending *pend_victim(struct door *d, const char *who)
{
	struct pending *v = NULL;
	int i, vn = 0;

	for (i = 0; i < DOOR_MAX_PENDING; i++) {
		struct pending *p = &d->pend[i];
		int n;

		if (!pend_yields(d, p) || (who && strcmp(p->peer, who)))
			continue;
		n = who ? 0 : pend_count(d, p->peer);
		if (pend_worse(d, p, n, v, vn)) {
			v = p;
			vn = n;
		}
	}
	return v;
}

/* A free place, or none: then is there one a newcomer may take? */
static bool door_has_room(struct door *d)
{
	int i;

	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st == PEND_FREE || pend_yields(d, &d->pend[i]))
			return true;
	return false;
}

/*
 * A place for a new connection from who: past DOOR_MAX_PER_ADDR from who,
 * one of who's; else a free one; else the one pend_victim() gives up. NULL
 * when none may be given up.
 */
static struct pending *pend_slot(struct door *d, const char *who)
{
	struct pending *v;
	int i;

	if (pend_count(d, who) >= DOOR_MAX_PER_ADDR) {
		v = pend_victim(d, who);
		if (v)
			pend_drop(d, v,
				  "too many handshakes from one address (one that got least "
				  "far goes)");
		return v;
	}
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st == PEND_FREE)
			return &d->pend[i];
	v = pend_victim(d, NULL);
	if (v)
		pend_drop(d, v,
			  "too many handshakes at once (one that got least far, of the busiest "
			  "address, goes)");
	return v;
}

/*
 * Accept on listening socket lfd: outside --allow is closed before a byte
 * is read. False when there was nothing to accept.
 */
static bool door_accept(struct door *d, int lfd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pending *p;
	char who[64];
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return false;
	netaddr_text((struct sockaddr *)&ss, who, sizeof(who));
	if (!door_allows(d, (struct sockaddr *)&ss)) {
		door_drop_note(d, who, "not in --allow", DROP_CLOSED);
		close(fd);
		return true;
	}
	p = pend_slot(d, who);
	if (!p) {
		door_drop_note(d, who,
			       "too many handshakes from one address, each further than this one",
			       DROP_DROPPED);
		close(fd);
		return true;
	}
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	snprintf(p->peer, sizeof(p->peer), "%s", who);
	p->since = p->heard = nbw_now_ns();
	p->round = d->round;
	p->deadline = p->since + wait_ns(d->o, WAIT_DOOR);
	p->st = PEND_AUTH;
	return true;
}

/*
 * Tell a peer of another version why it is dropped, in a plain message (of
 * protocol 3: what an older source reads): our version, or, after a keyed
 * AUTH, that the messages from HELLO on must carry a MAC.
 */
static void pend_tell_version(const struct door *d, struct pending *p, int rc)
{
	struct ctrl_buf b;
	char msg[160];

	if (rc == CTRL_ERR_NOMAC)
		snprintf(msg, sizeof(msg),
			 "sink speaks protocol version %d with --psk-file (every message "
			 "after AUTH MAC'd): run the same version on both sides",
			 CTRL_VERSION_MAC);
	else
		snprintf(msg, sizeof(msg), "sink speaks protocol version %d (%d with --psk-file)",
			 CTRL_VERSION, CTRL_VERSION_MAC);
	ctrl_send_free(p->fd, NULL, &b, ctrl_encode_error(&b, msg), wait_ms(d->o, WAIT_VERSION));
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
	if (!rc && p->auth.mac.on)
		p->in.mac = &p->auth.mac; /* HELLO on: MAC'd */
	if (!rc && pend_answered(d, p))
		p->answered = nbw_now_ns();
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
		if (rc == -EPROTONOSUPPORT || rc == CTRL_ERR_NOMAC)
			pend_tell_version(d, p, rc);
		pend_drop(d, p,
			  rc != -EBADMSG	     ? ctrl_strerror(rc)
			  : p->in.type != CTRL_HELLO ? "a message out of turn"
			  : has_key(d)		     ? "HELLO before the key was proved"
						     : "HELLO before AUTH");
		return 0;
	}
	rc = pend_step(d, p, &why);
	if (rc == 1 && ctrl_decode_hello(p->in.payload, p->in.len, &g->hello)) {
		why = "malformed HELLO";
		rc = -EBADMSG;
	}
	if (rc < 0) {
		pend_drop(d, p, why);
		return 0;
	}
	ctrl_inbox_reset(&p->in);
	if (rc == 0)
		return 0;
	g->fd = p->fd;
	g->trusted = p->auth.trusted;
	g->mac = p->auth.mac;
	snprintf(g->peer, sizeof(g->peer), "%s", p->peer);
	p->fd = -1;
	p->st = PEND_FREE;
	return 1;
}

/* Accept from every listening socket that has a newcomer, as many as there are places. */
static void door_accept_all(struct door *d, const struct pollfd *pfd)
{
	int i, k;

	for (i = 0; i < d->nlfd; i++)
		for (k = 0; (pfd[i].revents & POLLIN) && k < DOOR_ACCEPTS_PER_ROUND; k++)
			if (!door_has_room(d) || !door_accept(d, d->lfd[i]))
				break;
}

/* Poll the listening sockets and the pending handshakes once. 1 a guest is ready. */
static int door_round(struct door *d, int ms, struct door_guest *g)
{
	struct pollfd pfd[DOOR_MAX_ADDRS + DOOR_MAX_PENDING];
	struct pending *who[DOOR_MAX_PENDING];
	uint64_t now;
	int i, n = 0, np = 0;

	d->round++;
	door_said(d, false);
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
	now = nbw_now_ns();
	for (i = 0; i < np; i++) {
		if (!(pfd[d->nlfd + i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		who[i]->heard = now;
		if (pend_read(d, who[i], g))
			return 1;
	}
	door_accept_all(d, pfd);
	now = nbw_now_ns();
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st != PEND_FREE && now >= d->pend[i].deadline)
			pend_drop(d, &d->pend[i],
				  "no complete HELLO within the handshake deadline");
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

	if (g->trusted)
		ctrl_send_free(g->fd, &g->mac, &b, ctrl_encode_error(&b, why),
			       wait_ms(d->o, WAIT_TELL));
	door_drop_note(d, g->peer, why, DROP_REFUSED);
	close(g->fd);
	g->fd = -1;
}

void door_close(struct door *d)
{
	int i;

	if (!d)
		return;
	door_said(d, true);
	for (i = 0; i < d->nlfd; i++)
		close(d->lfd[i]);
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (d->pend[i].st != PEND_FREE) {
			close(d->pend[i].fd);
			ctrl_inbox_reset(&d->pend[i].in);
		}
	free(d);
}

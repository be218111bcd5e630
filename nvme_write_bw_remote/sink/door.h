/* SPDX-License-Identifier: MIT */
/*
 * door.h: the sink's front door. It listens on the addresses it was told to
 * (by default those of the RDMA ports it uses), closes connections from
 * outside --allow before reading a byte, and serves many handshakes at once,
 * each with a short deadline of its own, so that idle or hostile connections
 * cannot starve the real source. With a pre-shared key, a source must prove
 * it holds the key before it may send a single parameter; nothing about the
 * sink's set-up is said to anyone who has not. A stranger never ends the
 * sink's run: it is dropped, counted (said at most once a second for each
 * reason), and the door keeps waiting.
 */
#ifndef NBW_DOOR_H
#define NBW_DOOR_H

#include <stdbool.h>
#include <stdint.h>

#include "ctrl_io.h"
#include "options.h"

#define DOOR_MAX_PENDING 128
#define DOOR_MAX_PER_ADDR 8 /* pending handshakes of one address */
#define DOOR_MAX_ADDRS 16
/* Connections accepted from one listening socket in a round, at most (no more than places). */
#define DOOR_ACCEPTS_PER_ROUND 64
/*
 * A handshake whose AUTH the door answered keeps its place this long for its
 * next message, the proof (or an open sink's HELLO), one round trip away (ms).
 */
#define DOOR_ANSWER_MS 250
/* Reasons to turn connections away that the door counts apart (the last one: all others). */
#define DOOR_DROP_REASONS 16

/* A source that said a well-formed HELLO. */
struct door_guest {
	int fd;
	char peer[64];
	struct ctrl_hello hello;
	bool trusted; /* proved the key, or the sink is open: may be told why it is refused */
	struct ctrl_mac mac; /* with a key: the channel's MACs from HELLO on (ctrl_mac.h) */
};

struct door;

/*
 * Listen on the control port: --bind, or every ports[] address (every
 * address when none has one). NULL after the error line.
 */
struct door *door_open(const struct options *o, const struct fab_port *ports, int nports);

/* The addresses listened on, for the header and the rdma_cm listener. */
int door_addrs(const struct door *d, const char *const **addrs);
/* "10.0.0.1, 10.0.1.1" or "every address", for the header. */
const char *door_where(const struct door *d);

/*
 * Serve handshakes until one completes or deadline (monotonic ns, 0 =
 * none). 0 and *g filled (its fd is the caller's), -ETIMEDOUT, or -EINTR.
 */
int door_await(struct door *d, uint64_t deadline, struct door_guest *g);

/* Turn a guest away: tell it why if it is trusted, log it (as a drop), close it. */
void door_refuse(struct door *d, struct door_guest *g, const char *why);

void door_close(struct door *d);

#endif

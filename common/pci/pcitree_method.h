/* SPDX-License-Identifier: MIT */
/*
 * pcitree_method.h: how pcitree.c reads a source, one file per libpci access
 * method as pciutils splits its own: a live or captured sysfs tree
 * (pcitree_sysfs.c) and an `lspci -xxx` dump (pcitree_dump.c). Private to
 * libnbw_pci: pcitree_load() picks the method, lets it check the source,
 * points libpci at it, reads every function's configuration space, and
 * lets the method add what it knows of each function and relate them.
 */
#ifndef NBW_PCITREE_METHOD_H
#define NBW_PCITREE_METHOD_H

#include <stddef.h>

#include <pci/pci.h>

#include "pcitree.h"

/* The source being read, from prepare() to the end of pcitree_load(). */
struct pcitree_src {
	const char *file; /* the dump named (NULL: sysfs) */
	int fd;		  /* the dump's checked private copy, or -1 (pcitree_load closes it) */
	char name[sizeof(((struct pcitree *)0)->sysfs_root) + 16]; /* what libpci opens */
};

struct pcitree_method {
	/* Check the source before libpci reads it: 0, or -errno with a message in err. */
	int (*prepare)(struct pcitree *t, struct pcitree_src *s, char *err, size_t errlen);
	/* Point libpci's access at the source. */
	void (*setup)(struct pcitree_src *s, struct pci_access *pacc);
	/* What the method adds to f beyond its cfg_len bytes of configuration space (or NULL). */
	void (*fill)(struct pcitree *t, struct pci_dev *d, struct pcie_fn *f, size_t cfg_len);
	/* Parents and VFs of the functions, sorted by address: 0 or -errno. */
	int (*relate)(struct pcitree *t);
};

extern const struct pcitree_method pcitree_sysfs_method, pcitree_dump_method;

/* The first index of t whose address is not below bdf (the functions are sorted). */
int pcitree_lower_bound(const struct pcitree *t, const char *bdf);

#endif

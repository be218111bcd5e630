// SPDX-License-Identifier: MIT
/*
 * fuzz_pcidump.c: fuzz target for the dump path of nvme_link_probe: the
 * line checker (pcidump_check) and, for what it accepts, the whole reader
 * (pcitree_load through libpci's dump method, the relations, VF matching,
 * role inference) and a path walk from every function.
 *
 * What the checker accepts, libpci must read without an error of its own: a
 * libpci error there means the checker let through a line libpci chokes on
 * (-EIO from pcitree_load), and the target aborts so that the driver keeps
 * the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcidump.h"
#include "pcitree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *fuzz_stats(void);

static int memfd = -1;
static char memfd_path[64];
static unsigned long long n_checked, n_read, n_fns;

const char *fuzz_stats(void)
{
	static char s[128];

	snprintf(s, sizeof(s), "%llu passed the checker, %llu read by libpci (%llu functions)",
		 n_checked, n_read, n_fns);
	return s;
}

static void walk_all(const struct pcitree *t)
{
	struct pcie_path p;
	int i;

	for (i = 0; i < t->n; i++) {
		const struct pcie_fn *f = pcitree_find(t, t->fn[i].bdf);

		if (!f || strcmp(f->bdf, t->fn[i].bdf)) {
			fprintf(stderr, "fuzz_pcidump: pcitree_find lost %s\n", t->fn[i].bdf);
			abort();
		}
		pcitree_path(t, f, "device", false, &p);
		pcitree_usable_ceiling(t, f->bdf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcidump_err e;
	struct pcitree t;
	char err[512];
	int rc;

	if (pcidump_check((const char *)data, size, &e))
		return 0;
	n_checked++;
	if (memfd < 0) {
		memfd = memfd_create("fuzz-pcidump", MFD_CLOEXEC);
		if (memfd < 0) {
			perror("fuzz_pcidump: memfd_create");
			exit(1);
		}
		snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_pcidump: memfd");
		exit(1);
	}
	rc = pcitree_load(&t, NULL, memfd_path, err, sizeof(err));
	if (rc == -EIO) {
		fprintf(stderr, "fuzz_pcidump: the checker accepted what libpci rejects: %s\n",
			err);
		abort();
	}
	if (!rc) {
		n_read++;
		n_fns += (unsigned long long)t.n;
		walk_all(&t);
		pcitree_free(&t);
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * blockdigest FILE [SPAN [OFFSET]]: print the digest (common/base/digest.h) of
 * SPAN bytes of FILE starting at OFFSET (default: the whole file from 0), the
 * way nvme_read_bw --checksum reports it. Test helper, reads with plain read().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	uint64_t span = UINT64_MAX, off = 0, acc = 0, done = 0;
	char hex[17];
	int fd;

	nbw_set_prog(argv[0]);
	if (argc < 2 || argc > 4 || (argc > 2 && parse_size(argv[2], &span)) ||
	    (argc > 3 && parse_size(argv[3], &off)) || off % DIGEST_BLOCK) {
		fprintf(stderr,
			"usage: blockdigest FILE [SPAN [OFFSET]] (OFFSET a multiple of %u)\n",
			DIGEST_BLOCK);
		return NBW_EXIT_USAGE;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		nbw_err("%s: %s", argv[1], strerror(errno));
		return NBW_EXIT_FAIL;
	}
	while (done < span) {
		size_t want = span - done < sizeof(buf) ? (size_t)(span - done) : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)(off + done));

		if (n < 0) {
			nbw_err("%s: %s", argv[1], strerror(errno));
			return NBW_EXIT_FAIL;
		}
		if (n == 0)
			break;
		acc = digest_add(acc, off + done, buf, (size_t)n);
		done += (uint64_t)n;
	}
	close(fd);
	if (span != UINT64_MAX && done != span) {
		nbw_err("%s: only %llu of %llu bytes", argv[1], (unsigned long long)done,
			(unsigned long long)span);
		return NBW_EXIT_FAIL;
	}
	digest_hex(acc, hex);
	printf("%s\n", hex);
	return NBW_EXIT_OK;
}

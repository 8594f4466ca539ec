/* SPDX-License-Identifier: Apache-2.0
 *
 * fdio.c - whole writes to a file descriptor (fdio.h)
 */
#include <errno.h>
#include <unistd.h>

#include "common/fdio.h"

int fd_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

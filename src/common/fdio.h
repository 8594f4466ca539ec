/* SPDX-License-Identifier: Apache-2.0
 *
 * fdio.h - whole writes to a file descriptor
 */
#ifndef DROVER_COMMON_FDIO_H
#define DROVER_COMMON_FDIO_H

#include <stddef.h>

/* Write all 'len' bytes of 'data' to 'fd' (blocking), retrying short
 * writes and EINTR.  Returns 0, or -1 with errno from write() (a write of
 * 0 bytes leaves errno as it was).
 */
int fd_write_all(int fd, const void *data, size_t len);

#endif /* !DROVER_COMMON_FDIO_H */

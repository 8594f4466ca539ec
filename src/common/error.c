/* SPDX-License-Identifier: Apache-2.0
 *
 * error.c - drv_error_t formatting and the Slurm error table
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

int errprintf(drv_error_t *error, const char *fmt, ...)
{
    int saved_errno = errno;

    if (error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error->text, sizeof(error->text), fmt, ap);
        va_end(ap);
    }
    errno = saved_errno;
    return -1;
}

const char *drv_strerror(int errnum)
{
    switch (errnum) {
#define X(name, num, msg)                                                      \
    case num:                                                                  \
        return msg;
        DRV_ERRORS(X)
#undef X
    default:
        return strerror(errnum);
    }
}

int drv_exit_status(int errnum)
{
    if (errnum >= DRV_LOCAL_ERRNO_BASE || !(errnum & 0xff))
        return 1;
    return errnum & 0xff;
}

const char *drv_errname(int errnum)
{
    switch (errnum) {
#define X(name, num, msg)                                                      \
    case num:                                                                  \
        return "EDRV_" #name;
        DRV_ERRORS(X)
#undef X
    default:
        return "errno";
    }
}

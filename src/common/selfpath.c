/* SPDX-License-Identifier: Apache-2.0
 *
 * selfpath.c - where the running program lives (selfpath.h)
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/selfpath.h"
#include "common/xalloc.h"

char *self_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;

    if (n <= 0) {
        if (n == 0)
            errno = ENOENT;
        return NULL;
    }
    exe[n] = '\0';
    if ((slash = strrchr(exe, '/')))
        *slash = '\0';
    return xstrdup(exe);
}

char *self_sibling(const char *name)
{
    char *dir = self_dir(), *path;

    if (!dir)
        return NULL;
    path = xasprintf("%s/%s", dir, name);
    free(dir);
    return path;
}

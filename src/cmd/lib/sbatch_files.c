/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_files.c - the files --nodefile and --export-file name
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "cmd/lib/sbatch_files.h"

#define FILE_MAX (1 << 20) /* bytes: a node or variable file, at most */

/* The whole of fd (left open), NUL-terminated in *out, its length in
 * *len.  Returns 0 or an errno value (EFBIG over FILE_MAX). */
static int slurp_fd(int fd, char **out, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = xzalloc(cap + 1);
    ssize_t r;

    while ((r = read(fd, buf + n, cap - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int rc = errno;
            free(buf);
            return rc;
        }
        n += (size_t)r;
        if (n == cap) {
            if (cap >= FILE_MAX) {
                free(buf);
                return EFBIG;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static int slurp_path(const char *path, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return errno;
    rc = slurp_fd(fd, out, len);
    close(fd);
    return rc;
}

static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
            return true;
    return false;
}

char *sbatch_read_nodefile(const char *path, char *err, size_t size)
{
    char *text, *list, *save = NULL;
    size_t len, used = 0;
    int rc = slurp_path(path, &text, &len);

    if (rc) {
        snprintf(err, size, "Unable to read --nodefile %s: %s", path,
                 strerror(rc));
        return NULL;
    }
    list = xzalloc(len + 1);
    for (char *w = strtok_r(text, ", \t\r\n", &save); w;
         w = strtok_r(NULL, ", \t\r\n", &save)) {
        if (listed(list, w))
            continue;
        used += (size_t)sprintf(list + used, "%s%s", used ? "," : "", w);
    }
    free(text);
    if (!used) {
        snprintf(err, size, "--nodefile %s names no node", path);
        free(list);
        return NULL;
    }
    return list;
}

/* A descriptor number as Slurm reads --export-file: digits only, >= 3. */
static int as_fd(const char *spec)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(spec, &end, 10);
    if (errno || end == spec || *end || v < 3 || v > 65535)
        return -1;
    return (int)v;
}

static int add_definitions(const char *text, size_t len, json_t *env,
                           const char *spec, char *err, size_t size)
{
    for (const char *p = text; p < text + len; p += strlen(p) + 1) {
        int rc;
        const char *eq = strchr(p, '=');
        char *name;

        if (!*p || (*p == '\n' && !p[1]))
            continue; /* an empty entry, or the file's last newline */
        if (!eq || eq == p) {
            snprintf(err, size, "--export-file %s: \"%.40s\" is not "
                     "NAME=value", spec, p);
            return -1;
        }
        name = xasprintf("%.*s", (int)(eq - p), p);
        rc = json_object_set_new(env, name, json_string(eq + 1));
        free(name);
        if (rc < 0) {
            snprintf(err, size, "--export-file %s: \"%.40s\" is not "
                     "UTF-8", spec, p);
            return -1;
        }
    }
    return 0;
}

int sbatch_read_export_file(const char *spec, json_t *env, char *err,
                            size_t size)
{
    int fd = as_fd(spec), rc;
    char *text;
    size_t len;

    rc = fd >= 0 ? slurp_fd(fd, &text, &len) : slurp_path(spec, &text, &len);
    if (rc) {
        snprintf(err, size, "Unable to read --export-file %s: %s", spec,
                 strerror(rc));
        return -1;
    }
    rc = add_definitions(text, len, env, spec, err, size);
    free(text);
    return rc;
}

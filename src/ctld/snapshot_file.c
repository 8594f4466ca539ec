/* SPDX-License-Identifier: Apache-2.0
 *
 * snapshot_file.c - the on-disk form of a journal snapshot (JSON lines)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/xalloc.h"
#include "ctld/snapshot_file.h"

#define FORMAT_KEY "drover_snapshot"
#define FORMAT 2
#define WRITE_BUF (1u << 20)

/* Buffered writes to a descriptor for json_dump_callback(). */
struct out {
    int fd;
    char *buf;
    size_t len;
    int err;
};

static int out_flush(struct out *o)
{
    if (o->len && !o->err && fd_write_all(o->fd, o->buf, o->len) < 0)
        o->err = errno ? errno : EIO;
    o->len = 0;
    return o->err ? -1 : 0;
}

static int out_put(const char *s, size_t n, void *arg)
{
    struct out *o = arg;

    if (o->len + n > WRITE_BUF && out_flush(o) < 0)
        return -1;
    if (n > WRITE_BUF) /* larger than the buffer: straight through */
        return fd_write_all(o->fd, s, n) < 0 ? (o->err = errno, -1) : 0;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    return 0;
}

/* One JSON value and a newline. */
static int out_line(struct out *o, json_t *v)
{
    if (json_dump_callback(v, out_put, o, JSON_COMPACT | JSON_ENCODE_ANY) < 0)
        return -1;
    return out_put("\n", 1, o);
}

int snapshot_file_write(int fd, json_t *state)
{
    struct out o = {.fd = fd, .buf = malloc(WRITE_BUF)};
    json_t *arrays = json_array(), *rest = json_object(), *v;
    const char *key;
    int rc = -1;

    if (!o.buf || !arrays || !rest || !json_is_object(state)) {
        errno = o.buf && arrays && rest ? EINVAL : ENOMEM;
        goto out;
    }
    json_object_foreach(state, key, v) {
        if (json_is_array(v))
            json_array_append_new(arrays, json_pack("[s I]", key,
                                                    (json_int_t)json_array_size(v)));
        else
            json_object_set(rest, key, v);
    }
    json_t *head = json_pack("{s:i s:O}", FORMAT_KEY, FORMAT, "arrays", arrays);
    rc = head ? out_line(&o, head) : -1;
    json_decref(head);
    json_object_foreach(state, key, v) {
        size_t i;
        json_t *item;

        if (!json_is_array(v))
            continue;
        json_array_foreach(v, i, item) {
            if (rc == 0)
                rc = out_line(&o, item);
        }
    }
    if (rc == 0)
        rc = out_line(&o, rest);
    if (out_flush(&o) < 0)
        rc = -1;
    if (rc < 0)
        errno = o.err ? o.err : ENOMEM;
out:
    json_decref(arrays);
    json_decref(rest);
    free(o.buf);
    return rc;
}

/* The mapped file, read a line at a time. */
struct in {
    const char *path;
    const char *p, *end;
    size_t lineno;
};

/* The next line parsed, or NULL with 'error' set (the file ended, or the
 * line is not JSON). */
static json_t *in_line(struct in *in, drv_error_t *error)
{
    const char *nl;
    json_error_t jerr;
    json_t *v;

    in->lineno++;
    if (in->p >= in->end) {
        errprintf(error, "%s:%zu: the snapshot ends early", in->path,
                  in->lineno);
        return NULL;
    }
    nl = memchr(in->p, '\n', (size_t)(in->end - in->p));
    if (!nl)
        nl = in->end;
    v = json_loadb(in->p, (size_t)(nl - in->p), JSON_DECODE_ANY, &jerr);
    if (!v)
        errprintf(error, "%s:%zu: %s", in->path, in->lineno, jerr.text);
    in->p = nl + 1;
    return v;
}

/* Hand one element to cb->item; keep it in 'kept' when it is left. */
static int deliver(const struct snapshot_file_cb *cb, const char *key,
                   json_t *item, json_t *kept, drv_error_t *error)
{
    int r = cb->item ? cb->item(key, item, cb->arg, error) : 1;

    if (r == 1)
        json_array_append(kept, item);
    return r < 0 ? -1 : 0;
}

/* The form before JSON lines: the whole object on one line. */
static int read_whole(json_t *snap, const struct snapshot_file_cb *cb,
                      drv_error_t *error)
{
    const char *key;
    json_t *v;

    json_object_foreach(snap, key, v) {
        json_t *kept, *item;
        size_t i;

        if (!json_is_array(v))
            continue;
        kept = json_array();
        json_array_foreach(v, i, item) {
            if (deliver(cb, key, item, kept, error) < 0) {
                json_decref(kept);
                return -1;
            }
        }
        json_object_set_new(snap, key, kept);
    }
    return cb->rest(snap, cb->arg, error);
}

static int read_lines(struct in *in, json_t *head,
                      const struct snapshot_file_cb *cb, drv_error_t *error)
{
    json_t *arrays = json_object_get(head, "arrays"), *sect, *kept_all,
           *rest = NULL;
    size_t i;
    int rc = -1;

    if (json_integer_value(json_object_get(head, FORMAT_KEY)) != FORMAT
        || !json_is_array(arrays))
        return errprintf(error, "%s:1: snapshot format %lld is not known",
                         in->path,
                         (long long)json_integer_value(
                             json_object_get(head, FORMAT_KEY)));
    kept_all = json_object();
    json_array_foreach(arrays, i, sect) {
        const char *key = json_string_value(json_array_get(sect, 0));
        json_int_t n = json_integer_value(json_array_get(sect, 1));
        json_t *kept = json_array();

        json_object_set_new(kept_all, key ? key : "", kept);
        for (json_int_t k = 0; k < n; k++) {
            json_t *item = in_line(in, error);
            int r = item ? deliver(cb, key ? key : "", item, kept, error) : -1;

            json_decref(item);
            if (r < 0)
                goto out;
        }
    }
    if (!(rest = in_line(in, error)))
        goto out;
    if (!json_is_object(rest)) {
        errprintf(error, "%s:%zu: not an object", in->path, in->lineno);
        goto out;
    }
    json_object_update(rest, kept_all);
    rc = cb->rest(rest, cb->arg, error);
out:
    json_decref(rest);
    json_decref(kept_all);
    return rc;
}

int snapshot_file_read(const char *path, const struct snapshot_file_cb *cb,
                       drv_error_t *error)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    void *map = MAP_FAILED;
    struct in in = {.path = path};
    json_t *first = NULL;
    int rc = -1;

    if (fd < 0 || fstat(fd, &st) < 0) {
        errprintf(error, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    if (st.st_size == 0) {
        errprintf(error, "%s: empty", path);
        goto out;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        errprintf(error, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    (void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
    in.p = map;
    in.end = in.p + st.st_size;
    if (!(first = in_line(&in, error)))
        goto out;
    if (!json_is_object(first))
        errprintf(error, "%s:1: not an object", path);
    else if (json_object_get(first, FORMAT_KEY))
        rc = read_lines(&in, first, cb, error);
    else
        rc = read_whole(first, cb, error);
out:
    json_decref(first);
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    return rc;
}

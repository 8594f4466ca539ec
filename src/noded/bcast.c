/* SPDX-License-Identifier: Apache-2.0
 *
 * bcast.c - sbcast's file_bcast on the node (bcast.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lz4.h>
#include <uthash.h>

#include "common/base64.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/bcast.h"
#include "noded/jobcontainer.h"
#include "noded/noded.h"

/* What the controller said of a job, for its blocks. */
struct bcast_job {
    uint32_t id;
    uid_t uid;
    gid_t gid;
    char *user;
    uint64_t until_ms; /* uv_now() after which it is asked again */
    UT_hash_handle hh;
};

/* One block on its way: asking the controller, then being written. */
struct bcast_block {
    struct noded *nd;
    proto_req_t *req;
    uid_t sender;
    bool sender_daemon;
    uint32_t job_id;
    pid_t pid;         /* the writer, once forked; 0 while asking */
    struct bcast_block *next; /* nd_bcast.blocks */
};
/* (b->req is NULL once bcast_stop() answered it; the controller's late
 * answer then only frees b.) */

/* nd->bcast: created by the first file_bcast. */
struct nd_bcast {
    struct bcast_job *jobs;      /* the cache, by job id */
    struct bcast_block *blocks;  /* in flight: asking (pid 0) or written */
    unsigned in_flight;          /* how many */
    bool stopping;               /* bcast_stop() answered every request */
};

static struct nd_bcast *state(struct noded *nd)
{
    if (!nd->bcast)
        nd->bcast = xzalloc(sizeof(*nd->bcast));
    return nd->bcast;
}

static void job_free(struct bcast_job *j)
{
    free(j->user);
    free(j);
}

static void block_unlink(struct bcast_block *b)
{
    struct bcast_block **p = &b->nd->bcast->blocks;

    while (*p && *p != b)
        p = &(*p)->next;
    if (*p) {
        *p = b->next;
        b->nd->bcast->in_flight--;
    }
}

/* Answer 'b' with an error and free it (unlinked). */
static void block_fail(struct bcast_block *b, int errnum, const char *text)
{
    block_unlink(b);
    if (!b->req) { /* answered by bcast_stop() */
        free(b);
        return;
    }
    if (!text)
        text = drv_strerror(errnum);
    log_verbose("file_bcast JobId=%u from uid %u: %s", b->job_id,
                (unsigned)b->sender, text);
    proto_respond_error(b->req, errnum, text);
    free(b);
}

/* --- the writer (a forked child) ---------------------------------------- */

/* Create or open 'path' as the user and write the block; returns 0 or an
 * errno.  In the child only. */
static int write_block(json_t *body, const unsigned char *data, size_t len)
{
    const char *path = json_string_value(json_object_get(body, "path"));
    json_int_t offset = json_integer_value(json_object_get(body, "offset"));
    bool first = offset == 0;
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of
     * holding the writer, and one of BCAST_IN_FLIGHT_MAX, forever */
    int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    struct stat st;
    int fd;

    if (first)
        flags |= O_CREAT
                 | (json_is_true(json_object_get(body, "force")) ? O_TRUNC
                                                                 : O_EXCL);
    if ((fd = open(path, flags, 0700)) < 0)
        return errno;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) { /* no devices */
        close(fd);
        return EINVAL;
    }
    for (size_t done = 0; done < len;) {
        ssize_t n = pwrite(fd, data + done, len - done,
                           (off_t)offset + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return e;
        }
        done += (size_t)n;
    }
    if (json_is_true(json_object_get(body, "last"))) {
        json_t *mode = json_object_get(body, "mode");
        json_t *mtime = json_object_get(body, "mtime");
        if (mode && fchmod(fd, (mode_t)json_integer_value(mode)) < 0) {
            int e = errno;
            close(fd);
            return e;
        }
        if (mtime) {
            struct timespec ts[2] = {
                {.tv_sec = (time_t)json_integer_value(
                     json_object_get(body, "atime"))},
                {.tv_sec = (time_t)json_integer_value(mtime)},
            };
            if (futimens(fd, ts) < 0) {
                int e = errno;
                close(fd);
                return e;
            }
        }
    }
    return close(fd) < 0 ? errno : 0;
}

/* The child: the job's container, the user, the block.  Exits with 0 or
 * the errno. */
static void writer(struct noded *nd, const struct bcast_job *j, json_t *body,
                   const unsigned char *data, size_t len)
{
    json_t *jc = json_object_get(nd->step_conf, "job_container");
    drv_error_t error = {0};

    child_reset();
    if (jc && !json_is_null(jc)) {
        int fd = jc_job_enter(jc, j->id, j->user, j->uid, j->gid, &error);
        if (fd < 0)
            _exit(EACCES);
        child_set_mnt_ns(fd);
    }
    if (child_become_user(j->user, j->uid, j->gid) < 0)
        _exit(errno ? errno : EPERM);
    umask(077);
    _exit(write_block(body, data, len));
}

/* The block's bytes (free()): "data" decoded, and decompressed when
 * "compress" is "lz4" (to exactly "size" bytes); NULL with *why. */
static unsigned char *block_data(json_t *body, size_t *len, const char **why)
{
    const char *text = json_string_value(json_object_get(body, "data"));
    const char *how = json_string_value(json_object_get(body, "compress"));
    json_int_t size = json_integer_value(json_object_get(body, "size"));
    unsigned char *data = base64_decode(text ? text : "", len), *raw;

    *why = "data: not base64";
    if (!data || !how)
        return data;
    raw = xzalloc((size_t)size + 1);
    *why = "data: not lz4 of 'size' bytes";
    if (strcmp(how, "lz4")
        || LZ4_decompress_safe((const char *)data, (char *)raw, (int)*len,
                               (int)size)
               != size) {
        free(raw);
        raw = NULL;
    }
    free(data);
    *len = (size_t)size;
    return raw;
}

static void block_write(struct bcast_block *b, const struct bcast_job *j)
{
    json_t *body = proto_req_body(b->req);
    const char *why;
    size_t len = 0;
    unsigned char *data = block_data(body, &len, &why);
    pid_t pid;

    if (!data) {
        block_fail(b, EDRV_PROTOCOL_MALFORMED, why);
        return;
    }
    if ((pid = fork()) == 0)
        writer(b->nd, j, body, data, len);
    free(data);
    if (pid < 0) {
        block_fail(b, errno, NULL);
        return;
    }
    b->pid = pid;
}

bool bcast_reaped(struct noded *nd, pid_t pid, int status)
{
    struct bcast_block *b;

    if (!nd->bcast || pid <= 0)
        return false;
    for (b = nd->bcast->blocks; b && b->pid != pid; b = b->next)
        ;
    if (!b)
        return false;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        block_unlink(b);
        if (proto_respond(b->req, NULL) < 0)
            log_err("file_bcast: responding");
        free(b);
    } else {
        block_fail(b, WIFEXITED(status) ? WEXITSTATUS(status) : EIO, NULL);
    }
    return true;
}

/* --- who may write ------------------------------------------------------ */

/* The sender may write this job's files here (j: the job as the
 * controller answered). */
static bool allowed(const struct bcast_block *b, const struct bcast_job *j)
{
    return b->sender == j->uid || b->sender_daemon;
}

static void block_go(struct bcast_block *b, const struct bcast_job *j)
{
    if (!allowed(b, j))
        block_fail(b, EDRV_ACCESS_DENIED, NULL);
    else
        block_write(b, j);
}

/* The controller's job record: RUNNING and on this node, else an errno
 * with *why. */
static int job_here(struct noded *nd, json_t *job, const char **why)
{
    const char *state = json_string_value(json_object_get(job, "job_state"));
    const char *nodes = json_string_value(json_object_get(job, "nodes"));
    hostlist_t *hl;
    long at;

    if (!state || strcmp(state, "RUNNING")) {
        *why = "Job is not running";
        return EDRV_INVALID_JOB_ID;
    }
    if (!nodes || !(hl = hostlist_decode(nodes, NULL))) {
        *why = "Job has no nodes";
        return EDRV_INVALID_JOB_ID;
    }
    at = hostlist_find(hl, nd->node->name);
    hostlist_destroy(hl);
    if (at < 0) {
        *why = "Job has no allocation on this node";
        return EDRV_INVALID_JOB_ID;
    }
    return 0;
}

static void job_answered(int errnum, const char *errstr, json_t *resp,
                         void *arg)
{
    struct bcast_block *b = arg;
    json_t *job = json_array_get(json_object_get(resp, "jobs"), 0);
    const char *user, *why = NULL;
    struct bcast_job *j;
    int e;

    if (!b->req || state(b->nd)->stopping) {
        block_fail(b, ECANCELED, NULL);
        return;
    }
    if (errnum) {
        block_fail(b, errnum, errstr);
        return;
    }
    if (!job) {
        block_fail(b, EDRV_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    if ((e = job_here(b->nd, job, &why))) {
        block_fail(b, e, why);
        return;
    }
    user = json_string_value(json_object_get(job, "user_name"));
    HASH_FIND(hh, state(b->nd)->jobs, &b->job_id, sizeof(b->job_id), j);
    if (!j) {
        j = xzalloc(sizeof(*j));
        j->id = b->job_id;
        HASH_ADD(hh, b->nd->bcast->jobs, id, sizeof(j->id), j);
    }
    free(j->user);
    j->user = xstrdup(user ? user : "");
    j->uid = (uid_t)json_integer_value(json_object_get(job, "user_id"));
    j->gid = (gid_t)json_integer_value(json_object_get(job, "group_id"));
    j->until_ms = uv_now(b->nd->loop) + BCAST_AUTH_TTL_S * 1000;
    block_go(b, j);
}

void bcast_rpc(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_t *body = proto_req_body(req);
    const char *path = json_string_value(json_object_get(body, "path"));
    struct bcast_block *b = xzalloc(sizeof(*b));
    struct bcast_job *j;

    b->nd = nd;
    b->req = req;
    b->sender = proto_req_uid(req);
    b->sender_daemon = proto_req_roles(req) & PROTO_ROLE_DAEMON;
    b->job_id = (uint32_t)json_integer_value(json_object_get(body, "job_id"));
    b->next = state(nd)->blocks;
    nd->bcast->blocks = b;
    if (++nd->bcast->in_flight > BCAST_IN_FLIGHT_MAX) {
        block_fail(b, EAGAIN, NULL); /* a writer per block: bounded */
        return;
    }
    if (!path || path[0] != '/') {
        block_fail(b, EINVAL, "path: not absolute");
        return;
    }
    HASH_FIND(hh, state(nd)->jobs, &b->job_id, sizeof(b->job_id), j);
    if (j && uv_now(nd->loop) < j->until_ms) {
        block_go(b, j);
        return;
    }
    if (noded_ctld_call(nd, "job_info",
                        json_pack("{s:[I] s:[sssss]}", "job_ids",
                                  (json_int_t)b->job_id, "fields",
                                  "job_state", "nodes", "user_id",
                                  "group_id", "user_name"),
                        job_answered, b)
        < 0)
        block_fail(b, EDRV_COMMUNICATIONS_CONNECTION, NULL);
}

void bcast_stop(struct noded *nd)
{
    struct nd_bcast *s = nd->bcast;
    struct bcast_job *j, *tmp;

    if (!s)
        return;
    HASH_ITER(hh, s->jobs, j, tmp) {
        HASH_DEL(s->jobs, j);
        job_free(j);
    }
    s->stopping = true;
    for (struct bcast_block *b = s->blocks; b; b = b->next) {
        proto_respond_error(b->req, ECANCELED, "node daemon stopping");
        b->req = NULL;
    }
}

void bcast_free(struct noded *nd)
{
    struct nd_bcast *s = nd->bcast;

    if (!s)
        return;
    while (s->blocks) { /* writers: their children are not waited for */
        struct bcast_block *b = s->blocks;
        s->blocks = b->next;
        free(b);
    }
    s->in_flight = 0;
    free(s);
    nd->bcast = NULL;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * journal.c - append-only JSON-lines log with batched fdatasync
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/journal.h"
#include "ctld/snapshot_file.h"

struct journal {
    char *dir;
    char *log_path;
    char *old_path;  /* the log before a snapshot being written */
    char *snap_path;
    int fd;
    pid_t child;     /* writing a snapshot (journal_snapshot_async) */
    char *buf;     /* queued record lines */
    size_t len;
    size_t cap;
    size_t records;
    int failed;    /* errno of the last flush, 0 when it worked */
};

static int mkdir_p(const char *dir)
{
    char *p = xstrdup(dir);

    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                free(p);
                return -1;
            }
            *s = '/';
        }
    }
    free(p);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Open (or create) the log for appending; a descriptor or -1. */
static int open_log(const struct journal *j)
{
    return open(j->log_path,
                O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

struct journal *journal_open(const char *dir, drv_error_t *error)
{
    struct journal *j = xzalloc(sizeof(*j));

    j->fd = -1;
    j->dir = xstrdup(dir);
    j->log_path = xasprintf("%s/journal", dir);
    j->old_path = xasprintf("%s/journal.old", dir);
    j->snap_path = xasprintf("%s/snapshot.json", dir);
    if (mkdir_p(dir) < 0) {
        errprintf(error, "cannot create StateSaveLocation %s: %s", dir,
                  strerror(errno));
        goto error;
    }
    j->fd = open_log(j);
    if (j->fd < 0) {
        errprintf(error, "cannot open %s: %s", j->log_path, strerror(errno));
        goto error;
    }
    return j;
error:
    journal_close(j);
    return NULL;
}

/* The snapshot's key naming the journal.old it already holds (by inode):
 * a restart between the snapshot's rename and journal.old's removal must
 * not apply it twice (records are not all upserts: a requeue counts). */
#define OLD_INO_KEY "journal_old_ino"

struct replay_ctx {
    const struct journal_replay_cb *cb;
    json_int_t old_ino;
};

static int replay_item(const char *key, json_t *item, void *arg,
                       drv_error_t *error)
{
    const struct replay_ctx *c = arg;

    return c->cb->item ? c->cb->item(key, item, c->cb->arg, error) : 1;
}

static int replay_rest(json_t *snap, void *arg, drv_error_t *error)
{
    struct replay_ctx *c = arg;

    c->old_ino = json_integer_value(json_object_get(snap, OLD_INO_KEY));
    json_object_del(snap, OLD_INO_KEY);
    return c->cb->snapshot ? c->cb->snapshot(snap, c->cb->arg, error) : 0;
}

static int replay_snapshot(struct journal *j, const struct journal_replay_cb *cb,
                           json_int_t *old_ino, drv_error_t *error)
{
    struct replay_ctx c = {.cb = cb};
    struct snapshot_file_cb fcb = {
        .item = replay_item, .rest = replay_rest, .arg = &c};
    int rc;

    *old_ino = 0;
    if (access(j->snap_path, F_OK) < 0)
        return 0;
    rc = snapshot_file_read(j->snap_path, &fcb, error);
    *old_ino = c.old_ino;
    return rc;
}

static int replay_line(char *line, size_t lineno, bool last,
                       const struct journal_replay_cb *cb, drv_error_t *error)
{
    json_error_t jerr;
    json_t *rec;
    int rc;

    if (!*line)
        return 0;
    if (!(rec = json_loads(line, 0, &jerr))) {
        if (last) {
            log_error("journal:%zu: ignoring torn last record", lineno);
            return 0;
        }
        return errprintf(error, "journal:%zu: %s", lineno, jerr.text);
    }
    rc = cb->record ? cb->record(rec, cb->arg, error) : 0;
    json_decref(rec);
    return rc;
}

/* Replay the log at 'path' ('missing_ok': none is no error); its line
 * count in *lines. */
static int replay_log(const char *path, bool missing_ok,
                      const struct journal_replay_cb *cb, size_t *lines,
                      drv_error_t *error)
{
    FILE *fp;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    int rc = 0;

    if (!(fp = fopen(path, "r"))) {
        if (missing_ok && errno == ENOENT)
            return 0;
        return errprintf(error, "cannot read %s: %s", path, strerror(errno));
    }
    while (rc == 0 && (n = getline(&line, &cap, fp)) >= 0) {
        bool complete = n > 0 && line[n - 1] == '\n';
        if (complete)
            line[n - 1] = '\0';
        lineno++;
        rc = replay_line(line, lineno, !complete, cb, error);
    }
    *lines = lineno;
    free(line);
    fclose(fp);
    return rc;
}

int journal_replay(struct journal *j, const struct journal_replay_cb *cb,
                   drv_error_t *error)
{
    size_t old = 0;
    json_int_t covered;
    struct stat st;

    if (replay_snapshot(j, cb, &covered, error) < 0)
        return -1;
    /* A snapshot was being written when the controller stopped: the log
     * it started from, unless the snapshot that landed holds it already
     * (then only its removal was left to do). */
    if (stat(j->old_path, &st) == 0 && covered
        && (json_int_t)st.st_ino == covered) {
        if (unlink(j->old_path) < 0)
            return errprintf(error, "cannot remove %s: %s", j->old_path,
                             strerror(errno));
    } else if (replay_log(j->old_path, true, cb, &old, error) < 0) {
        return -1;
    }
    if (replay_log(j->log_path, false, cb, &j->records, error) < 0)
        return -1;
    j->records += old;
    return 0;
}

int journal_append_text(struct journal *j, const char *text, size_t n)
{
    if (j->len + n + 1 > j->cap) {
        size_t cap = (j->cap ? j->cap * 2 : 65536);
        while (cap < j->len + n + 1)
            cap *= 2;
        char *nb = realloc(j->buf, cap);
        if (!nb)
            return errno = ENOMEM, -1;
        j->buf = nb;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, text, n);
    j->buf[j->len + n] = '\n';
    j->len += n + 1;
    j->records++;
    return 0;
}

int journal_append(struct journal *j, json_t *rec)
{
    char *s = json_dumps(rec, JSON_COMPACT);
    int rc;

    if (!s)
        return errno = ENOMEM, -1;
    rc = journal_append_text(j, s, strlen(s));
    free(s);
    return rc;
}

int journal_dirty(const struct journal *j)
{
    return j->len > 0;
}

int journal_failing(const struct journal *j)
{
    return j->len > 0 ? j->failed : 0;
}

size_t journal_length(const struct journal *j)
{
    return j->records;
}

/* Cut what part of the batch reached the file (a full disk takes half a
 * line), so the log stays whole; the batch stays queued.  errno kept. */
static void cut_partial(struct journal *j, off_t start)
{
    int saved_errno = errno;

    if (start >= 0 && ftruncate(j->fd, start) < 0)
        log_err("journal: cannot cut a partial write");
    errno = saved_errno;
}

int journal_flush(struct journal *j)
{
    int err;

    journal_flush_together(&j, 1, &err);
    return err ? (errno = err, -1) : 0;
}

struct sync_job {
    pthread_t thread;
    int fd;
    int err;       /* errno of fdatasync, 0 when it worked */
    bool started;
};

static void *sync_thread(void *arg)
{
    struct sync_job *s = arg;

    s->err = fdatasync(s->fd) < 0 ? errno : 0;
    return NULL;
}

void journal_flush_together(struct journal *const *js, size_t n, int *err)
{
    struct sync_job *sync = xzalloc(n * sizeof(*sync));
    off_t *start = xzalloc(n * sizeof(*start));

    for (size_t i = 0; i < n; i++) {
        err[i] = 0;
        sync[i].fd = -1;
        if (!js[i] || !js[i]->len)
            continue;
        start[i] = lseek(js[i]->fd, 0, SEEK_END);
        if (fd_write_all(js[i]->fd, js[i]->buf, js[i]->len) < 0) {
            err[i] = js[i]->failed = errno;
            cut_partial(js[i], start[i]);
            continue;
        }
        sync[i].fd = js[i]->fd;
    }
    /* The disk syncs at once: all but the first on a thread each. */
    for (size_t i = 1; i < n; i++)
        if (sync[i].fd >= 0
            && pthread_create(&sync[i].thread, NULL, sync_thread, &sync[i])
                   == 0)
            sync[i].started = true;
    for (size_t i = 0; i < n; i++) {
        if (sync[i].fd < 0)
            continue;
        if (sync[i].started)
            pthread_join(sync[i].thread, NULL);
        else
            sync_thread(&sync[i]);
        if ((err[i] = js[i]->failed = sync[i].err))
            cut_partial(js[i], start[i]);
        else
            js[i]->len = 0;
    }
    free(start);
    free(sync);
}

/* Write 'state' to 'path' in snapshot_file.h's form and fsync it. */
static int write_file_sync(const char *path, json_t *state)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0600);

    if (fd < 0)
        return -1;
    if (snapshot_file_write(fd, state) < 0 || fsync(fd) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

/* Write 'state' as the snapshot, naming the journal.old it holds (if one
 * is there): temp file, fsync, rename, fsync dir. */
static int snapshot_write(const struct journal *j, json_t *state)
{
    char *tmp = xasprintf("%s.new", j->snap_path);
    struct stat st;
    int rc = -1;

    if (stat(j->old_path, &st) == 0)
        json_object_set_new(state, OLD_INO_KEY,
                            json_integer((json_int_t)st.st_ino));
    if (write_file_sync(tmp, state) == 0 && rename(tmp, j->snap_path) == 0
        && fsync_dir(j->dir) == 0)
        rc = 0;
    json_object_del(state, OLD_INO_KEY);
    free(tmp);
    return rc;
}

/* Flush, rename the log journal.old and go on in a fresh one.  Returns 0,
 * or -1 with errno (EBUSY: a journal.old is there already) and the log as
 * it was. */
static int rotate(struct journal *j)
{
    int fd;

    if (access(j->old_path, F_OK) == 0) {
        errno = EBUSY;
        return -1;
    }
    if (journal_flush(j) < 0 || rename(j->log_path, j->old_path) < 0)
        return -1;
    fd = open_log(j);
    if (fd < 0 || fsync_dir(j->dir) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        (void)rename(j->old_path, j->log_path); /* as it was */
        errno = e;
        return -1;
    }
    close(j->fd);
    j->fd = fd;
    j->records = 0;
    return 0;
}

int journal_snapshot(struct journal *j, json_t *state)
{
    bool rotated;

    if (j->child) /* its older snapshot must not land over this one */
        (void)journal_snapshot_poll(j, true);
    if (journal_flush(j) < 0)
        return -1;
    /* The log becomes journal.old, which the snapshot names, so a restart
     * at any point applies each record once; with a failed child's
     * journal.old still there, the log is emptied after the snapshot (a
     * restart between the two applies it twice). */
    rotated = rotate(j) == 0;
    if (snapshot_write(j, state) < 0)
        return -1;
    if (!rotated && (ftruncate(j->fd, 0) < 0 || fdatasync(j->fd) < 0))
        return -1;
    if (unlink(j->old_path) < 0 && errno != ENOENT)
        return -1;
    j->records = 0;
    return 0;
}

/* In the child: write build(arg) as the snapshot; never returns. */
static void snapshot_child(struct journal *j, json_t *(*build)(void *),
                           void *arg, pid_t parent)
{
    json_t *state;

    /* Never outlive the controller: a restarted one may write its own
     * snapshot, which this older one must not replace. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
        _exit(2);
    state = build(arg);
    _exit(state && snapshot_write(j, state) == 0 ? 0 : 1);
}

int journal_snapshot_async(struct journal *j, json_t *(*build)(void *arg),
                           void *arg)
{
    pid_t parent = getpid(), pid;

    if (j->child) {
        errno = EBUSY; /* one at a time */
        return -1;
    }
    if (rotate(j) < 0)
        return -1; /* EBUSY: a failed one's journal.old is still there */
    if ((pid = fork()) < 0)
        return -1; /* journal.old stays: the next snapshot is synchronous */
    if (pid == 0)
        snapshot_child(j, build, arg, parent);
    j->child = pid;
    return 0;
}

int journal_snapshot_poll(struct journal *j, bool wait)
{
    int status;
    pid_t r;

    if (!j->child)
        return 0;
    while ((r = waitpid(j->child, &status, wait ? 0 : WNOHANG)) < 0
           && errno == EINTR)
        ;
    if (r == 0)
        return 0;
    j->child = 0;
    if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1; /* journal.old stays */
    if (unlink(j->old_path) < 0 && errno != ENOENT)
        return -1;
    return 1;
}

bool journal_snapshotting(const struct journal *j)
{
    return j->child != 0;
}

void journal_close(struct journal *j)
{
    if (!j)
        return;
    int saved_errno = errno;
    if (j->fd >= 0) {
        if (j->len && journal_flush(j) < 0)
            log_err("journal: final flush");
        close(j->fd);
    }
    free(j->buf);
    free(j->dir);
    free(j->log_path);
    free(j->old_path);
    free(j->snap_path);
    free(j);
    errno = saved_errno;
}

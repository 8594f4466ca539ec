/* SPDX-License-Identifier: Apache-2.0
 *
 * stepctl.c - droverd's requests to its steps' control sockets, from the
 * loop (stepd.h: stepctl_call())
 *
 * One connection per request: connect, write the request frame, read one
 * answer frame, close.  A step process that does not answer within
 * CONTROL_TIMEOUT_MS (stopped, or busy) costs droverd nothing but the
 * wait of that one request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/stepd.h"
#include "proto/frame.h"

#define CONTROL_TIMEOUT_MS 2000

struct stepctl {
    uv_pipe_t pipe;
    uv_connect_t conn;
    uv_write_t write;
    uv_timer_t timer;
    proto_decoder_t *dec;
    char *frame;
    size_t frame_len;
    stepctl_cb cb;
    void *arg;
    int open;          /* handles not yet closed */
    bool finished;     /* cb called */
    struct stepctl *next, **pprev; /* live_calls */
};

/* Calls under way, for stepctl_cancel_all(). */
static struct stepctl *live_calls;

static void closed(uv_handle_t *h)
{
    struct stepctl *c = h->data;

    if (!c->finished) { /* closed with the loop at droverd's stop */
        c->finished = true;
        c->cb(NULL, c->arg);
    }
    if (--c->open == 0) {
        if ((*c->pprev = c->next))
            c->next->pprev = c->pprev;
        proto_decoder_destroy(c->dec);
        free(c->frame);
        free(c);
    }
}

/* The answer (NULL: none): the callback, once; then the handles go. */
static void finish(struct stepctl *c, json_t *resp)
{
    if (c->finished)
        return;
    c->finished = true;
    c->cb(resp, c->arg);
    uv_close((uv_handle_t *)&c->pipe, closed);
    uv_close((uv_handle_t *)&c->timer, closed);
}

static void timed_out(uv_timer_t *t)
{
    finish(t->data, NULL);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct stepctl *c = s->data;
    json_t *resp = NULL;

    if (n > 0 && proto_decoder_feed(c->dec, buf->base, (size_t)n) == 0)
        resp = proto_decoder_next(c->dec, NULL);
    free(buf->base);
    if (resp || n < 0) {
        finish(c, resp);
        json_decref(resp);
    }
}

static void on_write(uv_write_t *w, int status)
{
    struct stepctl *c = w->data;

    if (status < 0)
        finish(c, NULL);
}

static void on_connect(uv_connect_t *req, int status)
{
    struct stepctl *c = req->data;
    uv_buf_t buf = uv_buf_init(c->frame, (unsigned)c->frame_len);

    if (c->finished)
        return;
    if (status < 0
        || uv_write(&c->write, (uv_stream_t *)&c->pipe, &buf, 1, on_write)
               < 0
        || uv_read_start((uv_stream_t *)&c->pipe, stepd_alloc_cb, on_read) < 0)
        finish(c, NULL);
}

int stepctl_call(struct noded *nd, uint32_t job, uint32_t step, json_t *req,
                 stepctl_cb cb, void *arg)
{
    char *path = stepd_sock_path(nd->spool_dir, job, step);
    char name[108];
    struct stepctl *c;
    size_t len;
    int dirfd = -1;

    if (stepd_sun_path(path, name, sizeof(name), &dirfd) < 0) {
        free(path);
        return -1;
    }
    free(path);
    c = xzalloc(sizeof(*c));
    if (proto_frame_encode(req, &c->frame, &len) < 0) {
        if (dirfd >= 0)
            close(dirfd);
        free(c);
        return -1;
    }
    c->frame_len = len;
    c->dec = proto_decoder_create();
    c->cb = cb;
    c->arg = arg;
    c->open = 2;
    if ((c->next = live_calls))
        live_calls->pprev = &c->next;
    c->pprev = &live_calls;
    live_calls = c;
    uv_pipe_init(nd->loop, &c->pipe, 0);
    uv_timer_init(nd->loop, &c->timer);
    c->pipe.data = c->timer.data = c->conn.data = c->write.data = c;
    uv_timer_start(&c->timer, timed_out, CONTROL_TIMEOUT_MS, 0);
    uv_pipe_connect(&c->conn, &c->pipe, name, on_connect);
    if (dirfd >= 0) /* connect() ran: the name is no longer needed */
        close(dirfd);
    return 0;
}

void stepctl_cancel_all(void)
{
    for (struct stepctl *c = live_calls; c; c = c->next)
        finish(c, NULL);
}

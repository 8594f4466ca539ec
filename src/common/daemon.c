/* SPDX-License-Identifier: Apache-2.0
 *
 * daemon.c - pid files and loop teardown for droverctld and droverd
 */
#include <stdio.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"

void daemon_write_pidfile(const char *path)
{
    FILE *fp;

    if (!path)
        return;
    if (!(fp = fopen(path, "w"))) {
        log_err("cannot write %s", path);
        return;
    }
    fprintf(fp, "%d\n", (int)getpid());
    fclose(fp);
}

static void close_cb(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void daemon_close_loop(uv_loop_t *loop)
{
    uv_walk(loop, close_cb, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
}

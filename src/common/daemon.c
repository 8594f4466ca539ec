/* SPDX-License-Identifier: Apache-2.0
 *
 * daemon.c - command line, pid files and loop teardown of the daemons
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void daemon_parse_opts(int argc, char **argv, const char *usage,
                       bool node_opt, struct daemon_opts *o)
{
    int c;

    memset(o, 0, sizeof(*o));
    while ((c = getopt(argc, argv, node_opt ? "Df:N:vVh" : "Df:vVh")) != -1) {
        switch (c) {
        case 'D':
            o->foreground = true;
            break;
        case 'f':
            o->conf_path = optarg;
            break;
        case 'N':
            o->node_name = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'V':
            printf("drover %s (slurm %s)\n", DROVER_VERSION,
                   DROVER_SLURM_VERSION);
            exit(0);
        case 'h':
            fputs(usage, stdout);
            exit(0);
        default:
            fputs(usage, stderr);
            exit(1);
        }
    }
}

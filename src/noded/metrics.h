/* SPDX-License-Identifier: Apache-2.0
 *
 * metrics.h - droverd's Prometheus endpoint: GET /metrics of this node
 *
 * Off unless slurm.conf has SlurmdParameters=drover_metrics=[HOST:]PORT
 * (conf_slurmd_params.c).  Like node_exporter and DCGM's exporter, each
 * node is scraped on its own and the series join the controller's
 * (droverrestd's /metrics) on job_id, user, node, gpu_index and uuid.
 * docs/metrics.md lists the series.  Unauthenticated, as those
 * exporters are: it shows job ids and user names, so bind it to a
 * management network.
 */
#ifndef DROVER_NODED_METRICS_H
#define DROVER_NODED_METRICS_H

#include <stddef.h>

#include "common/error.h"

struct noded;

/* The text of this node's metrics now (Prometheus text format 0.0.4),
 * read from the steps stepmgr runs (stepmgr_running_info()), their
 * cgroups (cgroup_usage_read()) and their processes (jobstat.h).  On the
 * loop's thread only.  Returns a new string (caller frees) and its
 * length in *len, or NULL when memory ran out. */
char *metrics_render(struct noded *nd, size_t *len);

/* Listen on the configured HOST:PORT (conf_metrics_port()) when
 * drover_metrics= is set; a no-op otherwise.  libmicrohttpd serves HTTP
 * driven from nd->loop (its epoll descriptor under a uv_poll, its
 * timeouts on a uv_timer), so requests are answered on the loop's
 * thread, which owns what they read.  Only GET /metrics is served (404
 * for other paths, 405 for other methods, 400 for a request with a
 * body); headers are bounded (MHD answers 431 past 8 KiB), connections
 * limited (16, 10 s idle).  Returns 0, or -1 with 'error' naming the
 * address (cannot resolve or bind). */
int metrics_start(struct noded *nd, drv_error_t *error);

/* Stop listening and close the handles (before daemon_close_loop(),
 * which runs their close callbacks; the last one frees the state).  A
 * no-op when not started. */
void metrics_stop(struct noded *nd);

#endif /* !DROVER_NODED_METRICS_H */

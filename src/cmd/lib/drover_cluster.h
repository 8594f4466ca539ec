/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_cluster.h - the directory of a local cluster made by `drover up`
 *
 * Everything a local cluster owns lives under one directory DIR:
 *   etc/slurm.conf etc/gres.conf   the configuration, in Slurm's dialect
 *   etc/slurmdbd.conf              droverdbd's (mode 0600)
 *   munge/                         key, socket, pid, log and seed of munged
 *   state/                         StateSaveLocation; acct.sqlite (accounting)
 *   spool/%n/                      SlurmdSpoolDir of each node
 *   log/                           droverctld.log, droverd-%n.log, munged.out
 *   run/                           droverctld.pid, droverd-%n.pid
 *   etc/restd.addr                 where droverrestd listens
 *   state/jwt_hs256.key            the auth/jwt key (REST tokens)
 *   dev/nvidia0...                 fake GPUs (character devices, major 195)
 *   etc/emulated.nodes             the nodes drover-emud emulates
 *                                  ("sim[00001-10000]"), when there are
 *   log/drover-emud.log, run/drover-emud.pid   that drover-emud's
 *   drover.lock                    held by `drover up` and `drover down`
 * etc/slurm.conf is written last, so a directory holding it holds a whole
 * cluster; `drover up` on such a directory reuses it as it is.
 */
#ifndef DROVER_CMD_LIB_DROVER_CLUSTER_H
#define DROVER_CMD_LIB_DROVER_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* The shape of a new cluster: the options of `drover up`. */
struct drover_shape {
    unsigned nodes;          /* node01..nodeNN (real: one droverd each) */
    unsigned emulate_nodes;  /* sim00001..: one drover-emud for all, on one
                              * port after droverrestd's; 0: none */
    unsigned gpus_per_node;  /* 0: no GPUs */
    unsigned cpus_per_node;
    uint64_t mem_mib;        /* RealMemory= of each node */
    const char *gpu_type;    /* "a100", or NULL for untyped GPUs */
    const char *partition;   /* the one partition, Default=YES */
    unsigned port_base;      /* controller's port, nodes' follow; 0: pick */
    const char *conf_extra;  /* "Key=Value\n" lines for slurm.conf (a key
                              * drover writes is replaced), or NULL */
    const char *dbd_conf_extra; /* the same for slurmdbd.conf, or NULL */
    const char *cgroup_conf_extra; /* the same for cgroup.conf, or NULL */
    unsigned controllers;    /* ctl1..ctlN on 127.0.0.1..N; 2 or more form
                              * a Raft group (src/ctld/ha.h) on the port
                              * after the others */
    bool isolate;            /* --isolate: each controller in its own
                              * network namespace (drover_isolate.h) */
    int isolate_octet;       /* set by drover_cluster_create: X of the
                              * subnet 10.77.X.0/24 (0: not isolated) */
};

#define DROVER_SHAPE_DEFAULT                                                   \
    {                                                                          \
        .nodes = 4, .gpus_per_node = 8, .cpus_per_node = 32,                   \
        .mem_mib = 262144, .gpu_type = NULL, .partition = "debug",             \
        .port_base = 0, .controllers = 1,                                      \
    }

/* Fixed names inside DIR. */
#define DROVER_CONF_REL "etc/slurm.conf"
#define DROVER_MUNGE_SOCKET_REL "munge/munge.socket.2"
#define DROVER_MUNGE_PID_REL "munge/munged.pid"
#define DROVER_CTLD_PID_REL "run/droverctld.pid"
#define DROVER_CTLD_LOG_REL "log/droverctld.log"
#define DROVER_DBD_CONF_REL "etc/slurmdbd.conf"
#define DROVER_CGROUP_CONF_REL "etc/cgroup.conf"
#define DROVER_DBD_PID_REL "run/droverdbd.pid"
#define DROVER_DBD_LOG_REL "log/droverdbd.log"
#define DROVER_RESTD_ADDR_REL "etc/restd.addr" /* "127.0.0.1:PORT" */
#define DROVER_RESTD_PID_REL "run/droverrestd.pid"
#define DROVER_RESTD_LOG_REL "log/droverrestd.log"
#define DROVER_JWT_KEY_REL "state/jwt_hs256.key" /* AuthAltParameters= */
#define DROVER_EMULATED_REL "etc/emulated.nodes" /* "sim[00001-N]\n" */
#define DROVER_EMUD_PID_REL "run/drover-emud.pid"
#define DROVER_EMUD_LOG_REL "log/drover-emud.log"

/* "dir/rel".  Caller frees. */
char *drover_path(const char *dir, const char *rel);

/* Node log "dir/log/droverd-NAME.log" and pid file "dir/run/droverd-NAME.pid"
 * (the SlurmdLogFile= and SlurmdPidFile= that drover_cluster_create writes).
 * Caller frees.
 */
char *drover_node_log(const char *dir, const char *node);
char *drover_node_pidfile(const char *dir, const char *node);

/* The hostlist of 'count' emulated nodes: sim00001..., zero-padded to
 * the width of 'count' (at least 5 digits): "sim[00001-10000]", or
 * "sim00001" for one.  Caller frees.
 */
char *drover_emulated_range(unsigned count);

/* The default cluster directory: $XDG_RUNTIME_DIR/drover, else
 * /tmp/drover-$USER.  Caller frees.
 */
char *drover_default_dir(void);

/* mkdir -p 'dir' (mode 0755 where made).  Returns 0, or -1 with errno and
 * 'error'.
 */
int drover_make_dir(const char *dir, drv_error_t *error);

/* True if 'dir' holds a cluster (its etc/slurm.conf exists). */
bool drover_cluster_exists(const char *dir);

/* Make the layout under 'dir' (absolute; created if missing), the fake GPU
 * devices, and write gres.conf, slurmdbd.conf (0600; SQLite in
 * state/acct.sqlite) then slurm.conf for 'shape'.  Ports are
 * shape->port_base and up (controller, nodes, droverdbd, droverrestd,
 * then the one port of all emulated nodes), or a free
 * block of consecutive ports below the kernel's ephemeral range.  Fake GPUs need mknod (root); without it a
 * warning goes to stderr and gres.conf gives Count= instead of File=.
 * Returns 0, or -1 with errno and 'error' naming the path or the reason.
 */
int drover_cluster_create(const char *dir, const struct drover_shape *shape,
                          drv_error_t *error);

/* Make a MUNGE key at 'path' (1024 random bytes, mode 0400) unless one
 * exists.  Returns 0, or -1 with errno and 'error'.
 */
int drover_munge_key(const char *path, drv_error_t *error);

#endif /* !DROVER_CMD_LIB_DROVER_CLUSTER_H */

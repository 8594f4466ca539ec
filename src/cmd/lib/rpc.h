/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.h - how a user command reaches the controller
 *
 * Commands find the cluster only through configuration: DROVER_CONF, then
 * the default slurm.conf path.  The MUNGE socket comes from AuthInfo=socket=.
 */
#ifndef DROVER_CMD_LIB_RPC_H
#define DROVER_CMD_LIB_RPC_H

#include <stdint.h>

#include <jansson.h>

#include "common/error.h"
#include "conf/conf.h"
#include "proto/frame.h"

/* Load (once) and return the configuration, as a command needs it
 * (conf_load_client(): no node is expanded).  On failure prints
 * "<prog>: error: <reason>" to stderr and exits 1 (commands only).
 * Borrowed: lives until exit.
 */
const struct slurm_conf *cmd_conf(const char *prog);

/* As cmd_conf() with every node expanded (conf_load()), for a command
 * that reaches nodes itself (sbcast, sattach: conf_node_find()). */
const struct slurm_conf *cmd_conf_nodes(const char *prog);

/* -M/--clusters 'list' (comma separated) as Drover takes it: it has one
 * cluster, so each name must be this ClusterName, or the list "all" or
 * "-1".  Returns that name (borrowed from the configuration; "" without
 * ClusterName), or NULL after printing "<prog>: error: --clusters: ..."
 * naming the other cluster. */
const char *cmd_clusters_check(const char *prog, const char *list);

/* Send one request of 'type' with 'body' (stolen) to the controller and
 * wait for the answer (MessageTimeout seconds).  The controller is each
 * SlurmctldHost= in order; while none accepts a connection, they are tried
 * again once a second for MessageTimeout seconds (Slurm's
 * slurm_open_controller_conn), and then the call fails with errno
 * EDRV_CTLD_COMMUNICATIONS_CONNECTION ("Unable to contact slurm controller
 * (connect failure)").  A request that was sent is never sent again,
 * but for one the controller refused for its rate limit before acting on
 * it (SLURMCTLD_COMMUNICATIONS_BACKOFF, SlurmctldParameters=rl_enable):
 * that one is sent again after 1 s, 2 s, 3 s... as Slurm's commands do,
 * until it gets through.  On success stores the
 * response body in *resp (caller json_decref()s; may pass NULL) and returns
 * 0.  On failure returns -1 with errno set to the EDRV_* number of an error
 * response, or an errno value for I/O errors, and error->text set to the
 * server's detail or drv_strerror(errno).
 */
int cmd_rpc(const char *prog, const char *type, json_t *body, json_t **resp,
            drv_error_t *error);

/* As cmd_rpc(), with the answer read by 'reader' (called with 'arg')
 * instead of jansson: squeue reads its rows with rowtable.h's
 * row_table_frame_reader(). */
int cmd_rpc_read(const char *prog, const char *type, json_t *body,
                 proto_frame_reader_f reader, void *arg, json_t **resp,
                 drv_error_t *error);

/* cmd_rpc() to another daemon at 'host':'port' (sacct to droverdbd), with
 * the same credential, timeout and errors.
 */
int cmd_rpc_to(const char *prog, const char *host, uint16_t port,
               const char *type, json_t *body, json_t **resp,
               drv_error_t *error);

/* Wait at most 'seconds' for each answer from now on, instead of
 * slurm.conf's MessageTimeout (sbcast -t); 0 restores MessageTimeout. */
void cmd_rpc_set_timeout(unsigned seconds);

/* As cmd_rpc, to the accounting daemon: AccountingStorageHost (default:
 * the controller's host) and AccountingStoragePort of slurm.conf.
 */
int cmd_rpc_dbd(const char *prog, const char *type, json_t *body,
                json_t **resp, drv_error_t *error);

#endif /* !DROVER_CMD_LIB_RPC_H */

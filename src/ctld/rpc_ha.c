/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_ha.c - takeover: hand the leadership of the Raft group (ha.h) to
 * another controller, as `scontrol takeover [INDEX]` asks
 */
#include "ctld/ctld.h"
#include "ctld/ha.h"
#include "ctld/rpc_ha.h"

/* {"index"?}: SlurmctldHost[INDEX] (default 1, Slurm's) becomes the
 * leader.  The leader answers once the transfer is under way. */
static void rpc_takeover(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_int_t index = 1;
    drv_error_t error = {{0}};

    if (!ctld->ha)
        return (void)proto_respond_error(req, EDRV_NOT_SUPPORTED,
                                         "one controller: no backup "
                                         "controller to take over");
    json_unpack(proto_req_body(req), "{s?I}", "index", &index);
    if (index < 0 || (size_t)index > ctld->conf->ctld_backup_count)
        return (void)proto_respond_error(req, EINVAL,
                                         "no SlurmctldHost of that index");
    if (ha_transfer(ctld->ha, (unsigned)index + 1, &error) < 0)
        return (void)proto_respond_error(req, EINVAL, error.text);
    proto_respond(req, json_object());
}

const struct proto_handler rpc_ha_handlers[] = {
    {"takeover", rpc_takeover, PROTO_ROLE_ADMIN},
    PROTO_HANDLER_END,
};

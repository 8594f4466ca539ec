/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_part.c - part_create, part_update, part_delete: the requests behind
 * scontrol create|update|delete partition
 *
 * Only administrators (root, SlurmUser) change partitions, as Slurm's
 * validate_super_user(): operators and users get Slurm's "Invalid user
 * id".  The change is checked here and applied as the part_changed event
 * (part.h); the answer goes once it is on disk.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/part.h"

static void answer_error(proto_req_t *req, int errnum, const char *text)
{
    if (proto_respond_error(req, errnum, text) < 0)
        log_err("partition: responding");
}

/* "MaxTime=60 State=DOWN" for the log. */
static void settings_text(json_t *set, char *buf, size_t size)
{
    const char *k;
    json_t *v;
    size_t n = 0;

    buf[0] = '\0';
    json_object_foreach(set, k, v) {
        int w = snprintf(buf + n, size - n, "%s%s=%s", n ? " " : "", k,
                         json_string_value(v) ? json_string_value(v) : "");
        if (w < 0 || (size_t)w >= size - n)
            break;
        n += (size_t)w;
    }
}

static void change(proto_req_t *req, struct ctld *ctld, const char *op)
{
    json_t *body = proto_req_body(req);
    const char *name = json_string_value(json_object_get(body, "name"));
    json_t *set = json_object_get(body, "set");
    struct ctld_event ev = {.type = CTLD_EV_PART_CHANGED,
                            .t = ctld_now(ctld)};
    drv_error_t error = {{0}};
    char text[512];
    int errnum;

    if (!(proto_req_roles(req) & PROTO_ROLE_ADMIN))
        return answer_error(req, EDRV_USER_ID_MISSING, NULL);
    ev.part = json_pack("{s:s s:s}", "op", op, "name", name);
    if (strcmp(op, "delete"))
        json_object_set_new(ev.part, "set",
                            set ? json_deep_copy(set) : json_object());
    settings_text(json_object_get(ev.part, "set"), text, sizeof(text));
    if (part_check(ctld, ev.part, &errnum, &error) < 0
        || (ctld_apply(ctld, &ev) < 0
            && (errnum = EDRV_INVALID_PARTITION_NAME))) {
        log_info("%s_part: PartitionName=%s%s%s by uid %u refused: %s", op,
                 name, *text ? " " : "", text, (unsigned)proto_req_uid(req),
                 error.text);
        json_decref(ev.part);
        return answer_error(req, errnum, error.text[0] ? error.text : NULL);
    }
    log_info("%s_part: PartitionName=%s%s%s by uid %u", op, name,
             *text ? " " : "", text, (unsigned)proto_req_uid(req));
    json_decref(ev.part);
    ctld_respond_durable(ctld, req, NULL);
}

static void rpc_part_create(proto_req_t *req, void *arg)
{
    change(req, arg, "create");
}

static void rpc_part_update(proto_req_t *req, void *arg)
{
    change(req, arg, "update");
}

static void rpc_part_delete(proto_req_t *req, void *arg)
{
    change(req, arg, "delete");
}

const struct proto_handler rpc_part_handlers[] = {
    {"part_create", rpc_part_create, PROTO_ROLE_USER},
    {"part_update", rpc_part_update, PROTO_ROLE_USER},
    {"part_delete", rpc_part_delete, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};

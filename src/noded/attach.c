/* SPDX-License-Identifier: Apache-2.0
 *
 * attach.c - sattach's step_attach on the node (attach.h)
 */
#include <netinet/in.h>

#include "common/log.h"
#include "noded/attach.h"
#include "noded/noded.h"
#include "noded/stepd.h"

/* The step daemon's answer (NULL: no such step here, or it did not
 * answer in time). */
static void attach_answered(json_t *resp, void *arg)
{
    proto_req_t *req = arg;
    json_t *errnum = json_object_get(resp, "errnum");

    if (!resp) {
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (errnum) {
        proto_respond_error(req, (int)json_integer_value(errnum),
                            json_string_value(json_object_get(resp,
                                                              "errstr")));
        return;
    }
    if (proto_respond(req, json_incref(resp)) < 0)
        log_err("step_attach: responding");
}

/* The sender's numeric address, as the step connects back to it. */
static int peer_host(proto_req_t *req, char *buf, size_t len)
{
    const struct sockaddr *sa = proto_req_peer_addr(req);

    if (sa->sa_family == AF_INET6)
        return uv_ip6_name((const struct sockaddr_in6 *)sa, buf, len);
    return uv_ip4_name((const struct sockaddr_in *)sa, buf, len);
}

void attach_rpc(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t job = 0, step = -1, port = 0;
    const char *key = NULL;
    int layout = 0;
    char host[64] = "";
    json_t *ctl;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?I s?s s?b}", "job_id",
                    &job, "step_id", &step, "io_port", &port, "io_key", &key,
                    "layout", &layout)
            < 0
        || job <= 0 || job > UINT32_MAX || step < 0 || step > UINT32_MAX
        || (!layout && (!key || port <= 0 || port > 65535))
        || peer_host(req, host, sizeof(host)) < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                            "step_attach: job_id, step_id, io_port and "
                            "io_key wanted");
        return;
    }
    ctl = json_pack("{s:{s:s s:I s:s} s:I s:b s:b}", "attach", "host", host,
                    "port", port, "io_key", key ? key : "", "uid",
                    (json_int_t)proto_req_uid(req), "admin",
                    (proto_req_roles(req) & PROTO_ROLE_DAEMON) != 0,
                    "layout", layout);
    if (stepctl_call(nd, (uint32_t)job, (uint32_t)step, ctl, attach_answered,
                     req)
        < 0)
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
    json_decref(ctl);
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_assoc.c - acct_assoc_list and acct_modify (docs/protocol.md,
 * "Associations, QOS and users"); both run as work items (work.c)
 */
#include <errno.h>
#include <pwd.h>
#include <string.h>

#include "common/log.h"
#include "dbd/assoc_store.h"
#include "dbd/dbd.h"

/* A listing never writes, except that the controller (a daemon: root or
 * SlurmUser) registers its own cluster with "register":true, as
 * slurmctld's first contact with slurmdbd does.
 */
static bool registers(proto_req_t *req)
{
    json_t *body = proto_req_body(req);

    return json_is_true(json_object_get(body, "register"))
           && json_is_string(json_object_get(body, "cluster"))
           && (proto_req_roles(req) & PROTO_ROLE_DAEMON);
}

static int do_list(struct dbd *dbd, struct dbd_work *w)
{
    json_t *body = proto_req_body(w->req);
    const char *cluster = json_string_value(json_object_get(body, "cluster"));
    json_t *since = json_object_get(body, "if_changed_since");

    (void)dbd;
    if (registers(w->req)) {
        if (db_begin(w->db, &w->error) < 0
            || assoc_store_ensure_cluster(w->db, cluster, &w->error) < 0) {
            w->errnum = errno == EINVAL ? EINVAL : 0;
            db_rollback(w->db);
            return -1;
        }
        if (db_commit(w->db, &w->error) < 0)
            return -1;
    }
    w->result = assoc_store_list(w->db, cluster && cluster[0] ? cluster
                                                                : NULL,
                                 json_is_integer(since)
                                     ? json_integer_value(since) : -1,
                                 &w->error);
    return w->result ? 0 : -1;
}

static void rpc_acct_assoc_list(proto_req_t *req, void *arg)
{
    if (registers(req))
        dbd_work_submit(arg, req, do_list, -1);
    else
        dbd_work_submit_read(arg, req, do_list, -1);
}

/* root, SlurmUser, or an Operator/Administrator in the database (Slurm's
 * rule: operators may change the accounting database too).  *as_admin:
 * root, SlurmUser or an Administrator (not an Operator).
 */
static int check_admin(struct dbd *dbd, struct dbd_work *w, bool *as_admin)
{
    uid_t uid = proto_req_uid(w->req);
    struct passwd pw, *res = NULL;
    char buf[1024], level[32];

    *as_admin = uid == 0 || uid == dbd->slurm_uid;
    if (*as_admin)
        return 0;
    getpwuid_r(uid, &pw, buf, sizeof(buf), &res);
    if (res && assoc_store_admin_level(w->db, res->pw_name, level,
                                       sizeof(level), &w->error) < 0)
        return -1;
    *as_admin = res && !strcmp(level, "Administrator");
    if (res && strcmp(level, "None"))
        return 0;
    w->errnum = EDRV_ACCESS_DENIED;
    errprintf(&w->error, "%s", drv_strerror(EDRV_ACCESS_DENIED));
    return -1;
}

void dbd_work_private_unless_operator(struct dbd_work *w)
{
    struct passwd pw, *res = NULL;
    char buf[1024], level[32];
    drv_error_t error = {{0}};

    if (w->only_uid < 0)
        return;
    if (getpwuid_r((uid_t)w->only_uid, &pw, buf, sizeof(buf), &res) != 0
        || !res
        || assoc_store_admin_level(w->db, res->pw_name, level, sizeof(level),
                                   &error) < 0)
        return;
    if (!strcmp(level, "Operator") || !strcmp(level, "Administrator"))
        w->only_uid = -1;
}

static int do_modify(struct dbd *dbd, struct dbd_work *w)
{
    json_t *body = proto_req_body(w->req);
    bool as_admin;

    if (check_admin(dbd, w, &as_admin) < 0)
        return -1;
    w->result = assoc_store_modify(w->db, body,
                                   json_is_true(json_object_get(body,
                                                                "dry_run")),
                                   as_admin, &w->error);
    if (!w->result && errno == EINVAL)
        w->errnum = EINVAL;
    else if (!w->result && errno == EPERM)
        w->errnum = EDRV_ACCESS_DENIED;
    else if (!w->result)
        w->errnum = EDRV_ACCT_STORAGE;
    return w->result ? 0 : -1;
}

static void rpc_acct_modify(proto_req_t *req, void *arg)
{
    dbd_work_submit(arg, req, do_modify, -1);
}

const struct proto_handler dbd_assoc_handlers[] = {
    {"acct_assoc_list", rpc_acct_assoc_list,
     PROTO_ROLE_USER | PROTO_ROLE_DAEMON},
    {"acct_modify", rpc_acct_modify, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};

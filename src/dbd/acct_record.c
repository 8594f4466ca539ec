/* SPDX-License-Identifier: Apache-2.0
 *
 * acct_record.c - column tables of job and step records (docs/protocol.md)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "dbd/acct_record.h"

#define COL(key, column, kind, dflt) {key, column, kind, dflt}

/* job_id and submit_time first: with the cluster, they key the row. */
static const struct acct_col job_cols[] = {
    COL("job_id", "job_id", ACCT_INT, 0),
    COL("submit_time", "submit_time", ACCT_INT, 0),
    COL("array_job_id", "array_job_id", ACCT_INT, 0),
    COL("array_task_id", "array_task_id", ACCT_INT, -1),
    COL("array_task_str", "array_task_str", ACCT_TEXT, 0),
    COL("eligible_time", "eligible_time", ACCT_INT, 0),
    COL("start_time", "start_time", ACCT_INT, 0),
    COL("end_time", "end_time", ACCT_INT, 0),
    COL("name", "name", ACCT_TEXT, 0),
    COL("uid", "uid", ACCT_INT, 0),
    COL("user", "user_name", ACCT_TEXT, 0),
    COL("gid", "gid", ACCT_INT, 0),
    COL("group", "group_name", ACCT_TEXT, 0),
    COL("account", "account", ACCT_TEXT, 0),
    COL("qos", "qos", ACCT_TEXT, 0),
    COL("partition", "part_name", ACCT_TEXT, 0),
    COL("state", "state", ACCT_TEXT, 0),
    COL("cancelled_by", "cancelled_by", ACCT_INT_OPT, 0),
    COL("exit_status", "exit_status", ACCT_INT, 0),
    COL("derived_exit_status", "derived_exit_status", ACCT_INT, 0),
    COL("nodes", "nodes", ACCT_TEXT, 0),
    COL("nnodes", "nnodes", ACCT_INT, 0),
    COL("ncpus", "ncpus", ACCT_INT, 0),
    COL("req_cpus", "req_cpus", ACCT_INT, 0),
    COL("req_mem_mib", "req_mem_mib", ACCT_INT, 0),
    COL("req_mem_per_cpu", "req_mem_per_cpu", ACCT_BOOL, 0),
    COL("time_limit_min", "time_limit_min", ACCT_INT, -1),
    COL("priority", "priority", ACCT_INT, 0),
    COL("reason", "reason", ACCT_TEXT, 0),
    COL("work_dir", "work_dir", ACCT_TEXT, 0),
    COL("comment", "comment", ACCT_TEXT, 0),
    COL("constraints", "constraints", ACCT_TEXT, 0),
    COL("req_tres", "req_tres", ACCT_TEXT, 0),
    COL("alloc_tres", "alloc_tres", ACCT_TEXT, 0),
    COL("suspended_s", "suspended_s", ACCT_INT, 0),
    COL("suspend_time", "suspend_time", ACCT_INT, 0),
};

/* step_id first: with the job row, it keys the row. */
static const struct acct_col step_cols[] = {
    COL("step_id", "step_id", ACCT_INT, 0),
    COL("name", "name", ACCT_TEXT, 0),
    COL("state", "state", ACCT_TEXT, 0),
    COL("exit_status", "exit_status", ACCT_INT, 0),
    COL("start_time", "start_time", ACCT_INT, 0),
    COL("end_time", "end_time", ACCT_INT, 0),
    COL("nodes", "nodes", ACCT_TEXT, 0),
    COL("nnodes", "nnodes", ACCT_INT, 0),
    COL("ntasks", "ntasks", ACCT_INT, 0),
    COL("ncpus", "ncpus", ACCT_INT, 0),
    COL("alloc_tres", "alloc_tres", ACCT_TEXT, 0),
    COL("max_rss_kib", "max_rss_kib", ACCT_INT, -1),
    COL("max_rss_node", "max_rss_node", ACCT_TEXT, 0),
    COL("max_rss_task", "max_rss_task", ACCT_INT, -1),
    COL("user_cpu_us", "user_cpu_us", ACCT_INT, 0),
    COL("sys_cpu_us", "sys_cpu_us", ACCT_INT, 0),
};

const struct acct_table acct_job_table = {
    "job", job_cols, sizeof(job_cols) / sizeof(job_cols[0]),
};

const struct acct_table acct_step_table = {
    "step", step_cols, sizeof(step_cols) / sizeof(step_cols[0]),
};

static int wrong_type(const struct acct_table *t, const struct acct_col *c,
                      const char *want, drv_error_t *error)
{
    errno = EINVAL;
    return errprintf(error, "%s record: \"%s\" must be %s", t->what, c->key,
                     want);
}

static int col_param(const struct acct_table *t, const struct acct_col *c,
                     json_t *v, struct db_param *p, drv_error_t *error)
{
    if (!v || json_is_null(v)) {
        *p = c->kind == ACCT_TEXT   ? DB_TEXT("")
             : c->kind == ACCT_INT_OPT ? DB_NULL
                                       : DB_INT(c->dflt);
        return 0;
    }
    switch (c->kind) {
    case ACCT_TEXT:
        if (!json_is_string(v))
            return wrong_type(t, c, "a string", error);
        *p = DB_TEXT(json_string_value(v));
        return 0;
    case ACCT_BOOL:
        if (!json_is_boolean(v) && !json_is_integer(v))
            return wrong_type(t, c, "true or false", error);
        *p = DB_INT(json_is_true(v) || json_integer_value(v) != 0);
        return 0;
    default:
        if (!json_is_integer(v))
            return wrong_type(t, c, "an integer", error);
        *p = DB_INT(json_integer_value(v));
        return 0;
    }
}

int acct_record_params(const struct acct_table *t, json_t *record,
                       struct db_param *params, drv_error_t *error)
{
    if (!json_is_object(record)) {
        errno = EINVAL;
        return errprintf(error, "%s record is not an object", t->what);
    }
    for (size_t i = 0; i < t->count; i++) {
        const struct acct_col *c = &t->cols[i];
        if (col_param(t, c, json_object_get(record, c->key), &params[i],
                      error) < 0)
            return -1;
    }
    return 0;
}

char *acct_column_list(const struct acct_table *t, const char *prefix)
{
    char *out = xstrdup(""), *next;

    for (size_t i = 0; i < t->count; i++) {
        next = xasprintf("%s%s%s%s", out, i ? ", " : "", prefix,
                         t->cols[i].column);
        free(out);
        out = next;
    }
    return out;
}

json_t *acct_row_json(const struct acct_table *t, const struct db_row *row,
                      size_t first)
{
    json_t *o = json_object(), *v;

    for (size_t i = 0; o && i < t->count; i++) {
        const struct acct_col *c = &t->cols[i];
        size_t col = first + i;

        if (c->kind == ACCT_INT_OPT && db_row_is_null(row, col))
            continue;
        if (c->kind == ACCT_TEXT) {
            const char *s = db_row_text(row, col);
            v = json_string(s ? s : "");
        } else if (c->kind == ACCT_BOOL) {
            v = json_boolean(db_row_int(row, col) != 0);
        } else {
            v = json_integer(db_row_int(row, col));
        }
        if (!v || json_object_set_new(o, c->key, v) < 0) {
            json_decref(o);
            errno = v ? ENOMEM : EILSEQ;
            return NULL;
        }
    }
    return o;
}

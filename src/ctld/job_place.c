/* SPDX-License-Identifier: Apache-2.0
 *
 * job_place.c - -w/-x/-C, --begin, --time-min, --signal, --open-mode in
 * the job record
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/job_place.h"
#include "ctld/node_table.h"

void job_place_clear(struct job_place *pl)
{
    if (!pl)
        return;
    free(pl->req_nodes);
    free(pl->exc_nodes);
    free(pl->features);
    bitmap_destroy(pl->req_bm);
    bitmap_destroy(pl->exc_bm);
    *pl = (struct job_place){ 0 };
}

/* Zero is "not given": left out. */
static void put_int(const struct jsonw_sink *out, const char *key, int64_t v)
{
    if (v)
        jsonw_put_int(out, key, v);
}

void job_place_put(const struct job_place *pl, const struct jsonw_sink *out)
{
    jsonw_put_str(out, "req_nodes", pl->req_nodes);
    jsonw_put_str(out, "exc_nodes", pl->exc_nodes);
    jsonw_put_str(out, "features", pl->features);
    put_int(out, "begin_time", pl->begin_time);
    put_int(out, "time_min_s", pl->time_min_s);
    put_int(out, "signal_num", pl->signal_num);
    put_int(out, "signal_secs", pl->signal_secs);
    if (pl->signal_batch)
        jsonw_put_bool(out, "signal_batch_only", true);
    if (pl->open_append)
        jsonw_put_str(out, "open_mode", "append");
}

/* Replace *dst by string 'v' if it is one ("" = none); true if changed. */
static bool take_str(char **dst, json_t *v)
{
    const char *s = json_string_value(v);

    if (!json_is_string(v))
        return false;
    free(*dst);
    *dst = *s ? xstrdup(s) : NULL;
    return true;
}

static void take_int(int64_t *dst, json_t *v)
{
    if (json_is_integer(v))
        *dst = json_integer_value(v);
}

void job_place_apply_json(struct job_place *pl, json_t *o)
{
    int64_t n;
    json_t *v;

    if (take_str(&pl->req_nodes, json_object_get(o, "req_nodes"))) {
        bitmap_destroy(pl->req_bm);
        pl->req_bm = NULL;
    }
    if (take_str(&pl->exc_nodes, json_object_get(o, "exc_nodes"))) {
        bitmap_destroy(pl->exc_bm);
        pl->exc_bm = NULL;
    }
    take_str(&pl->features, json_object_get(o, "features"));
    take_int(&pl->begin_time, json_object_get(o, "begin_time"));
    take_int(&pl->time_min_s, json_object_get(o, "time_min_s"));
    n = pl->signal_num;
    take_int(&n, json_object_get(o, "signal_num"));
    pl->signal_num = (int)n;
    n = pl->signal_secs;
    take_int(&n, json_object_get(o, "signal_secs"));
    pl->signal_secs = (int)n;
    if ((v = json_object_get(o, "signal_batch_only")))
        pl->signal_batch = json_is_true(v);
    if ((v = json_object_get(o, "open_mode")) && json_is_string(v))
        pl->open_append = !strcmp(json_string_value(v), "append");
}


int job_place_resolve(struct job_place *pl, struct sched_request *req,
                      const struct node_table *nt, drv_error_t *error)
{
    if (pl->req_nodes && !pl->req_bm
        && !(pl->req_bm = node_table_bitmap(nt, pl->req_nodes, error)))
        return -1;
    if (pl->exc_nodes && !pl->exc_bm
        && !(pl->exc_bm = node_table_bitmap(nt, pl->exc_nodes, error)))
        return -1;
    req->required_nodes = pl->req_bm;
    req->excluded_nodes = pl->exc_bm;
    req->features = pl->features;
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_ctld_params.c - SlurmctldParameters=: the items Drover reads
 *
 * drover_raft_port=PORT (the port the controllers of a Raft group talk on,
 * on each SlurmctldHost address; droverctld needs it when there are two or
 * more), drover_raft_snapshot=N (log entries between two snapshots of the
 * controller's state, at least 16; default 4096) and Slurm's per-user RPC rate limit, rl_enable with rl_bucket_size=,
 * rl_refill_rate=, rl_refill_period=, rl_table_size= and rl_log_freq=
 * (slurm.conf(5); Slurm 23.02's items).  Slurm's other items are accepted
 * and not used (docs/config.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

/* The numeric rl_* items: name with its '=', field, smallest value. */
static const struct rl_item {
    const char *name;
    size_t offset;
    uint32_t min;
} rl_items[] = {
    { "rl_bucket_size=", offsetof(struct conf_rate_limit, bucket_size), 1 },
    { "rl_refill_rate=", offsetof(struct conf_rate_limit, refill_rate), 1 },
    { "rl_refill_period=", offsetof(struct conf_rate_limit, refill_period),
      1 },
    { "rl_table_size=", offsetof(struct conf_rate_limit, table_size), 1 },
    { "rl_log_freq=", offsetof(struct conf_rate_limit, log_freq), 0 },
};

#define RL_ITEM_COUNT (sizeof(rl_items) / sizeof(rl_items[0]))

/* One item (NUL-terminated, no comma) into 'conf'. */
static int one_item(struct slurm_conf *conf, const char *item,
                    drv_error_t *error)
{
    size_t n;
    uint32_t v;

    if (!strcasecmp(item, "rl_enable")) {
        conf->rl.enable = true;
        return 0;
    }
    if (!strncasecmp(item, "drover_raft_port=", 17)) {
        if (conf__parse_u32(item + 17, &v) < 0 || v == 0 || v > 65535)
            return conf__einval(error, "%s: SlurmctldParameters=%s: "
                                "expected a port number", conf->path, item);
        conf->raft_port = (uint16_t)v;
        return 0;
    }
    if (!strncasecmp(item, "drover_raft_snapshot=", 21)) {
        if (conf__parse_u32(item + 21, &v) < 0 || v < 16)
            return conf__einval(error, "%s: SlurmctldParameters=%s: "
                                "expected a number of log entries, at least "
                                "16", conf->path, item);
        conf->raft_snapshot = v;
        return 0;
    }
    for (size_t i = 0; i < RL_ITEM_COUNT; i++) {
        n = strlen(rl_items[i].name);
        if (strncasecmp(item, rl_items[i].name, n))
            continue;
        if (conf__parse_u32(item + n, &v) < 0 || v < rl_items[i].min)
            return conf__einval(error, "%s: SlurmctldParameters=%s: "
                                "expected a whole number of at least %u",
                                conf->path, item, rl_items[i].min);
        *(uint32_t *)((char *)&conf->rl + rl_items[i].offset) = v;
        return 0;
    }
    return 0; /* Slurm's other items: accepted, not used */
}

int conf__ctld_params(struct slurm_conf *conf, drv_error_t *error)
{
    conf->rl = (struct conf_rate_limit){
        .bucket_size = 30, .refill_rate = 2, .refill_period = 1,
        .table_size = 8192, .log_freq = 0,
    };
    return conf__each_item(conf, conf->ctld_params, one_item, error);
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_bcast.c - BcastParameters=: sbcast's defaults (slurm.conf(5))
 *
 * DestDir=PATH (where a relative DEST goes), Compression=lz4|none (the
 * default of sbcast -C), send_libs and no_send_libs (the default of
 * --send-libs, which sbcast refuses: docs/compatibility.md).  Any other
 * item is refused, naming it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

static int one_item(struct slurm_conf *conf, const char *item,
                    drv_error_t *error)
{
    if (!strncasecmp(item, "DestDir=", 8)) {
        if (item[8] != '/')
            return conf__einval(error, "%s: BcastParameters=%s: not an "
                                "absolute path", conf->path, item);
        return conf__set_string(&conf->bcast.dest_dir, item + 8,
                                strlen(item + 8)) < 0
                   ? conf__enomem(error) : 0;
    }
    if (!strcasecmp(item, "Compression=lz4")
        || !strcasecmp(item, "Compression=none")) {
        conf->bcast.compress = !strcasecmp(item + 12, "lz4");
        return 0;
    }
    if (!strcasecmp(item, "send_libs") || !strcasecmp(item, "no_send_libs")) {
        conf->bcast.send_libs = !strcasecmp(item, "send_libs");
        return 0;
    }
    return conf__einval(error, "%s: BcastParameters=%s: unknown item "
                        "(DestDir=, Compression=lz4|none, send_libs, "
                        "no_send_libs)", conf->path, item);
}

int conf__bcast_params(struct slurm_conf *conf, drv_error_t *error)
{
    free(conf->bcast.dest_dir);
    conf->bcast.dest_dir = NULL;
    conf->bcast.compress = conf->bcast.send_libs = false;
    return conf__each_item(conf, conf->bcast_params, one_item, error);
}

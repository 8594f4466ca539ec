/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_comm_params.c - CommunicationParameters=: the items Drover reads
 *
 * drover_tls_cert=PATH and drover_tls_key=PATH (both, or neither): the
 * REST API (droverrestd) serves HTTPS with that PEM certificate (chain)
 * and private key.  drover_tls_rpc: Drover's RPC protocol runs over TLS
 * (src/proto/tls.h): servers present that certificate and key, clients
 * verify it against the PEM CA bundle drover_tls_ca=PATH; all three must
 * be set.  Slurm 22.05's own items (slurm.conf(5):
 * block_null_hash, CheckGhalQuiesce, DisableIPv4, EnableIPv6,
 * NoAddrCache, NoCtldInAddrAny, NoInAddrAny, keepaliveinterval=,
 * keepaliveprobes=, keepalivetime=) are accepted and have no effect
 * (docs/compatibility.md); any other item is refused.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

static const char *const slurm_items[] = {
    "block_null_hash", "CheckGhalQuiesce", "DisableIPv4", "EnableIPv6",
    "NoAddrCache", "NoCtldInAddrAny", "NoInAddrAny", NULL,
};

static const char *const slurm_valued[] = {
    "keepaliveinterval=", "keepaliveprobes=", "keepalivetime=", NULL,
};

/* drover_tls_cert= / drover_tls_key= / drover_tls_ca=: an absolute path
 * into *field. */
static int path_item(struct slurm_conf *conf, const char *item,
                     const char *value, char **field, drv_error_t *error)
{
    if (value[0] != '/')
        return conf__einval(error, "%s: CommunicationParameters=%s: not an "
                            "absolute path", conf->path, item);
    return conf__set_string(field, value, strlen(value)) < 0
               ? conf__enomem(error) : 0;
}

static int one_item(struct slurm_conf *conf, const char *item,
                    drv_error_t *error)
{
    if (!strncasecmp(item, "drover_tls_cert=", 16))
        return path_item(conf, item, item + 16, &conf->tls.cert, error);
    if (!strncasecmp(item, "drover_tls_key=", 15))
        return path_item(conf, item, item + 15, &conf->tls.key, error);
    if (!strncasecmp(item, "drover_tls_ca=", 14))
        return path_item(conf, item, item + 14, &conf->tls.ca, error);
    if (!strcasecmp(item, "drover_tls_rpc")) {
        conf->tls.rpc = true;
        return 0;
    }
    for (size_t i = 0; slurm_items[i]; i++)
        if (!strcasecmp(item, slurm_items[i]))
            return 0; /* Slurm's: accepted, no effect */
    for (size_t i = 0; slurm_valued[i]; i++)
        if (!strncasecmp(item, slurm_valued[i], strlen(slurm_valued[i])))
            return 0;
    return conf__einval(error, "%s: CommunicationParameters=%s: unknown item "
                        "(Drover reads drover_tls_cert=PATH, "
                        "drover_tls_key=PATH, drover_tls_ca=PATH and "
                        "drover_tls_rpc and accepts Slurm's 22.05 items)",
                        conf->path, item);
}

void conf_tls_clear(struct conf_tls *tls)
{
    free(tls->cert);
    free(tls->key);
    free(tls->ca);
    *tls = (struct conf_tls){0};
}

int conf__comm_params(struct slurm_conf *conf, drv_error_t *error)
{
    conf_tls_clear(&conf->tls);
    if (conf__each_item(conf, conf->comm_params, one_item, error) < 0)
        return -1;
    if (!conf->tls.cert != !conf->tls.key)
        return conf__einval(error, "%s: CommunicationParameters: "
                            "drover_tls_cert= and drover_tls_key= go "
                            "together", conf->path);
    if (conf->tls.rpc && (!conf->tls.cert || !conf->tls.ca))
        return conf__einval(error, "%s: drover_tls_rpc needs "
                            "drover_tls_cert=,drover_tls_key=,drover_tls_ca=",
                            conf->path);
    return 0;
}

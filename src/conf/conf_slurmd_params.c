/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_slurmd_params.c - SlurmdParameters=: the items Drover reads
 *
 * drover_metrics=[HOST:]PORT turns on droverd's Prometheus endpoint
 * (noded/metrics.c) on HOST (default 127.0.0.1) and PORT; PORT may be
 * "+N": the node's own Port= plus N, so several droverd on one host (a
 * `drover up` cluster) each get their own.  Slurm 22.05's own items
 * (slurm.conf(5): config_overrides, contain_spank, l3cache_as_socket,
 * numa_node_as_socket, shutdown_on_reboot) are accepted and have no
 * effect (docs/compatibility.md); any other item is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

static const char *const slurm_items[] = {
    "config_overrides", "contain_spank", "l3cache_as_socket",
    "numa_node_as_socket", "shutdown_on_reboot", NULL,
};

/* "[HOST:]PORT" or "[HOST:]+N" of drover_metrics= into conf->metrics;
 * an IPv6 HOST may be in brackets ("[::1]:9100"). */
static int metrics_item(struct slurm_conf *conf, const char *item,
                        const char *value, drv_error_t *error)
{
    const char *colon = strrchr(value, ':'), *port = colon ? colon + 1 : value;
    size_t host_len = colon ? (size_t)(colon - value) : 0;
    bool offset = *port == '+';
    uint32_t v;

    if (conf__parse_u32(port + offset, &v) < 0 || v > 65535
        || (!offset && v == 0))
        return conf__einval(error, "%s: SlurmdParameters=%s: expected "
                            "[HOST:]PORT or [HOST:]+OFFSET (from the node's "
                            "Port=)", conf->path, item);
    if (host_len > 2 && value[0] == '[' && value[host_len - 1] == ']') {
        value++;
        host_len -= 2;
    }
    if (colon && (host_len == 0 || host_len >= sizeof(conf->metrics.host)))
        return conf__einval(error, "%s: SlurmdParameters=%s: the host is "
                            "empty or longer than %zu characters", conf->path,
                            item, sizeof(conf->metrics.host) - 1);
    snprintf(conf->metrics.host, sizeof(conf->metrics.host), "%.*s",
             (int)(colon ? host_len : strlen("127.0.0.1")),
             colon ? value : "127.0.0.1");
    conf->metrics.port = (uint16_t)v;
    conf->metrics.port_offset = offset;
    conf->metrics.enabled = true;
    return 0;
}

/* One item (NUL-terminated, no comma) into 'conf'. */
static int one_item(struct slurm_conf *conf, const char *item,
                    drv_error_t *error)
{
    if (!strncasecmp(item, "drover_metrics=", 15))
        return metrics_item(conf, item, item + 15, error);
    for (size_t i = 0; slurm_items[i]; i++)
        if (!strcasecmp(item, slurm_items[i]))
            return 0; /* Slurm's: accepted, no effect */
    return conf__einval(error, "%s: SlurmdParameters=%s: unknown item "
                        "(Drover reads drover_metrics=[HOST:]PORT and "
                        "accepts Slurm's config_overrides, contain_spank, "
                        "l3cache_as_socket, numa_node_as_socket, "
                        "shutdown_on_reboot)", conf->path, item);
}

int conf__slurmd_params(struct slurm_conf *conf, drv_error_t *error)
{
    conf->metrics = (struct conf_metrics){0};
    return conf__each_item(conf, conf->slurmd_params, one_item, error);
}

uint16_t conf_metrics_port(const struct slurm_conf *conf,
                           const struct conf_node *node)
{
    unsigned p;

    if (!conf->metrics.enabled)
        return 0;
    p = conf->metrics.port;
    if (conf->metrics.port_offset)
        p += node->port;
    return p > 65535 ? 0 : (uint16_t)p;
}

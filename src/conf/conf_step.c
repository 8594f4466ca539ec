/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_step.c - the part of the configuration a step daemon runs by, as
 * JSON (conf.h: conf_step_to_json(), conf_step_from_json())
 *
 * droverd hands it to each droverstepd with the launch, so the step runs
 * by the configuration its node daemon loaded, not by whatever slurm.conf,
 * gres.conf and cgroup.conf say when the step starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "conf/conf.h"
#include "conf/conf_private.h"

/* The strings of struct slurm_conf that travel, by their JSON keys. */
static const struct {
    const char *key;
    size_t offset;
} strings[] = {
    {"ctld_host", offsetof(struct slurm_conf, ctld_host)},
    {"ctld_addr", offsetof(struct slurm_conf, ctld_addr)},
    {"slurmd_spool_dir", offsetof(struct slurm_conf, slurmd_spool_dir)},
    {"slurmd_log_file", offsetof(struct slurm_conf, slurmd_log_file)},
    {"slurmd_debug", offsetof(struct slurm_conf, slurmd_debug)},
    {"proctrack_type", offsetof(struct slurm_conf, proctrack_type)},
    {"task_plugin", offsetof(struct slurm_conf, task_plugin)},
    {"task_plugin_param", offsetof(struct slurm_conf, task_plugin_param)},
    {"task_prolog", offsetof(struct slurm_conf, task_prolog)},
    {"task_epilog", offsetof(struct slurm_conf, task_epilog)},
};

static char **string_field(struct slurm_conf *conf, size_t i)
{
    return (char **)((char *)conf + strings[i].offset);
}

static json_t *cgroup_to_json(const struct conf_cgroup *cg)
{
    return json_pack("{s:i s:s* s:b s:b s:b s:b s:f s:f s:I}", "plugin",
                     (int)cg->plugin, "mountpoint", cg->mountpoint,
                     "constrain_cores", cg->constrain_cores,
                     "constrain_devices", cg->constrain_devices,
                     "constrain_ram_space", cg->constrain_ram_space,
                     "constrain_swap_space", cg->constrain_swap_space,
                     "allowed_ram_space", cg->allowed_ram_space,
                     "allowed_swap_space", cg->allowed_swap_space,
                     "min_ram_space_mib", (json_int_t)cg->min_ram_space_mib);
}

static json_t *node_to_json(const struct conf_node *node)
{
    json_t *devs = json_array();

    for (size_t i = 0; devs && i < node->gres_dev_count; i++) {
        const struct conf_gres_dev *d = &node->gres_devs[i];
        json_t *more = json_array();
        for (size_t m = 0; d->more_files && d->more_files[m]; m++)
            json_array_append_new(more, json_string(d->more_files[m]));
        json_array_append_new(devs, json_pack("{s:s s:s* s:s* s:i s:o}",
                                              "name", d->name, "type",
                                              d->type, "file", d->file,
                                              "index", d->index,
                                              "more_files", more));
    }
    return json_pack("{s:s s:i s:I s:o}", "name", node->name, "port",
                     (int)node->port, "cpus", (json_int_t)node->cpus,
                     "gres_devs", devs);
}

/* drover_tls_rpc: the step's I/O to srun and sattach runs over TLS, the
 * step presenting drover_tls_cert with drover_tls_key (paths: the step
 * daemon runs as root on this host and reads them itself). */
static json_t *tls_to_json(const struct conf_tls *tls)
{
    return json_pack("{s:b s:s* s:s* s:s*}", "rpc", tls->rpc, "cert",
                     tls->cert, "key", tls->key, "ca", tls->ca);
}

static int tls_from_json(json_t *o, struct conf_tls *tls, drv_error_t *error)
{
    const char *cert = NULL, *key = NULL, *ca = NULL;
    int rpc = 0;
    json_error_t jerr;

    if (!o)
        return 0; /* TLS off */
    if (json_unpack_ex(o, &jerr, JSON_STRICT, "{s:b s?s s?s s?s}", "rpc",
                       &rpc, "cert", &cert, "key", &key, "ca", &ca)
            < 0
        || (rpc && (!cert || !key)))
        return errprintf(error, "step configuration: tls: %s",
                         jerr.text[0] ? jerr.text
                                      : "drover_tls_rpc without a "
                                        "certificate and key");
    conf_tls_clear(tls);
    tls->rpc = rpc;
    tls->cert = cert ? xstrdup(cert) : NULL;
    tls->key = key ? xstrdup(key) : NULL;
    tls->ca = ca ? xstrdup(ca) : NULL;
    return 0;
}

json_t *conf_step_to_json(const struct slurm_conf *conf,
                          const struct conf_node *node)
{
    json_t *o = json_pack("{s:s s:i s:o s:o}", "path", conf->path,
                          "ctld_port", (int)conf->ctld_port, "cgroup",
                          cgroup_to_json(&conf->cgroup), "node",
                          node_to_json(node));

    for (size_t i = 0; o && i < sizeof(strings) / sizeof(strings[0]); i++) {
        const char *v = *string_field((struct slurm_conf *)conf, i);
        if (v)
            json_object_set_new(o, strings[i].key, json_string(v));
    }
    if (o && conf->oci.path)
        json_object_set_new(o, "oci", conf__oci_to_json(&conf->oci));
    if (o && conf->tls.rpc)
        json_object_set_new(o, "tls", tls_to_json(&conf->tls));
    return o;
}

static int cgroup_from_json(json_t *o, struct conf_cgroup *cg,
                            drv_error_t *error)
{
    const char *mnt = NULL;
    int plugin = 0, cores = 0, devices = 0, ram = 0, swap = 0;
    json_int_t min_ram = 0;
    json_error_t jerr;

    if (json_unpack_ex(o, &jerr, JSON_STRICT,
                       "{s:i s?s s:b s:b s:b s:b s:F s:F s:I}", "plugin",
                       &plugin, "mountpoint", &mnt, "constrain_cores", &cores,
                       "constrain_devices", &devices, "constrain_ram_space",
                       &ram, "constrain_swap_space", &swap,
                       "allowed_ram_space", &cg->allowed_ram_space,
                       "allowed_swap_space", &cg->allowed_swap_space,
                       "min_ram_space_mib", &min_ram)
            < 0
        || plugin < CONF_CGROUP_AUTODETECT || plugin > CONF_CGROUP_DISABLED
        || min_ram < 0)
        return errprintf(error, "step configuration: cgroup: %s",
                         jerr.text[0] ? jerr.text : "bad value");
    free(cg->mountpoint);
    cg->mountpoint = mnt ? xstrdup(mnt) : NULL;
    cg->plugin = (enum conf_cgroup_plugin)plugin;
    cg->constrain_cores = cores;
    cg->constrain_devices = devices;
    cg->constrain_ram_space = ram;
    cg->constrain_swap_space = swap;
    cg->min_ram_space_mib = (uint64_t)min_ram;
    return 0;
}

static int dev_from_json(json_t *o, struct conf_gres_dev *d,
                         drv_error_t *error)
{
    const char *name = NULL, *type = NULL, *file = NULL;
    json_t *more = NULL, *f;
    json_error_t jerr;
    size_t i;

    if (json_unpack_ex(o, &jerr, JSON_STRICT, "{s:s s?s s?s s:i s?o}",
                       "name", &name, "type", &type, "file", &file, "index",
                       &d->index, "more_files", &more)
        < 0)
        return errprintf(error, "step configuration: gres device: %s",
                         jerr.text);
    d->name = xstrdup(name);
    d->type = type ? xstrdup(type) : NULL;
    d->file = file ? xstrdup(file) : NULL;
    if (json_array_size(more)) {
        d->more_files = xzalloc((json_array_size(more) + 1) * sizeof(char *));
        json_array_foreach(more, i, f)
            d->more_files[i] = xstrdup(json_is_string(f) ? json_string_value(f)
                                                         : "");
    }
    return 0;
}

static int node_from_json(json_t *o, struct slurm_conf *conf,
                          drv_error_t *error)
{
    const char *name = NULL;
    json_t *devs = NULL;
    int port = 0;
    json_int_t cpus = 0; /* CPUs= (binding: does a job have the node?) */
    struct conf_node *node;
    json_error_t jerr;

    if (json_unpack_ex(o, &jerr, JSON_STRICT, "{s:s s:i s?I s:o}", "name",
                       &name, "port", &port, "cpus", &cpus, "gres_devs",
                       &devs)
            < 0
        || !json_is_array(devs) || port < 0 || port > UINT16_MAX
        || cpus < 0 || cpus > UINT32_MAX)
        return errprintf(error, "step configuration: node: %s",
                         jerr.text[0] ? jerr.text : "bad value");
    conf->nodes = node = xzalloc(sizeof(*node));
    conf->node_count = 1;
    node->name = xstrdup(name);
    node->port = (uint16_t)port;
    node->cpus = (uint32_t)cpus;
    node->gres_devs = xzalloc((json_array_size(devs) + 1)
                              * sizeof(*node->gres_devs));
    for (size_t i = 0; i < json_array_size(devs); i++) {
        if (dev_from_json(json_array_get(devs, i), &node->gres_devs[i],
                          error)
            < 0)
            return -1;
        node->gres_dev_count++;
    }
    if (conf__index_add(conf->node_index, node->name, 0) < 0)
        return errprintf(error, "step configuration: %s", strerror(errno));
    return 0;
}

struct slurm_conf *conf_step_from_json(json_t *o, drv_error_t *error)
{
    const char *path = json_string_value(json_object_get(o, "path"));
    json_int_t port = json_integer_value(json_object_get(o, "ctld_port"));
    struct slurm_conf *conf;

    if (!path || port <= 0 || port > UINT16_MAX) {
        errprintf(error, "step configuration without path or ctld_port");
        return NULL;
    }
    if (!(conf = conf__create(path))) {
        errprintf(error, "step configuration: %s", strerror(errno));
        return NULL;
    }
    conf->ctld_port = (uint16_t)port;
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        json_t *v = json_object_get(o, strings[i].key);
        char **field = string_field(conf, i);
        if (!v)
            continue;
        if (!json_is_string(v)) {
            errprintf(error, "step configuration: %s is not a string",
                      strings[i].key);
            conf_destroy(conf);
            return NULL;
        }
        free(*field);
        *field = xstrdup(json_string_value(v));
    }
    if (cgroup_from_json(json_object_get(o, "cgroup"), &conf->cgroup, error)
            < 0
        || node_from_json(json_object_get(o, "node"), conf, error) < 0
        || conf__oci_from_json(json_object_get(o, "oci"), &conf->oci, error)
               < 0
        || tls_from_json(json_object_get(o, "tls"), &conf->tls, error) < 0
        || conf__task_param(conf, error) < 0) {
        conf_destroy(conf);
        return NULL;
    }
    return conf;
}

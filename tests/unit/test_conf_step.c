/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_step.c - the configuration droverd hands each droverstepd
 * (conf.h: conf_step_to_json(), conf_step_from_json()): what a step reads
 * of slurm.conf, gres.conf and cgroup.conf survives the trip, and a bad
 * object is refused with the member named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"

static char dir[] = "/tmp/test_conf_step.XXXXXX";

static void put(const char *name, const char *text)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

/* The test's slurm.conf with the line 'extra' ("" for none) added. */
static struct slurm_conf *load_with(const char *extra)
{
    char path[256], text[1024];
    drv_error_t error = {{0}};
    struct slurm_conf *conf;

    assert_non_null(mkdtemp(dir));
    snprintf(text, sizeof(text), "%s%s",
             "ClusterName=t\nSlurmctldHost=ctl(10.0.0.1)\nSlurmctldPort=7001\n"
             "SlurmdSpoolDir=/tmp/spool/%n\nSlurmdLogFile=/tmp/log/%n.log\n"
             "SlurmdDebug=debug\nTaskPlugin=task/affinity,task/cgroup\n"
             "GresTypes=gpu\n"
             "NodeName=n1 CPUs=4 Port=7101 Gres=gpu:a100:2\n"
             "NodeName=n2 CPUs=4 Port=7102 Gres=gpu:2\n"
             "PartitionName=p Nodes=n[1-2] Default=YES\n",
             extra);
    put("slurm.conf", text);
    put("gres.conf", "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0\n"
                     "NodeName=n1 Name=gpu Type=a100 MultipleFiles="
                     "/dev/nvidia1,/dev/nvidia-caps/nvidia-cap3\n");
    put("cgroup.conf", "CgroupPlugin=cgroup/v1\nCgroupMountpoint=/cg\n"
                       "ConstrainRAMSpace=yes\nConstrainDevices=yes\n"
                       "AllowedRAMSpace=90.5\nMinRAMSpace=64\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    if (!(conf = conf_load(path, &error)))
        fail_msg("conf_load: %s", error.text);
    return conf;
}

static struct slurm_conf *load(void)
{
    return load_with("");
}

static void refused(json_t *o, const char *want);

static void cleanup(void)
{
    char cmd[300];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    strcpy(dir, "/tmp/test_conf_step.XXXXXX");
}

/* Everything a step reads is what droverd loaded. */
static void round_trip_keeps_what_a_step_reads(void **state)
{
    struct slurm_conf *conf = load();
    const struct conf_node *n1 = conf_node_find(conf, "n1");
    json_t *o = conf_step_to_json(conf, n1), *again;
    drv_error_t error = {{0}};
    struct slurm_conf *step;
    const struct conf_node *node;

    (void)state;
    if (!(step = conf_step_from_json(o, &error)))
        fail_msg("conf_step_from_json: %s", error.text);
    assert_string_equal(step->path, conf->path);
    assert_string_equal(step->ctld_host, "ctl");
    assert_string_equal(step->ctld_addr, "10.0.0.1");
    assert_int_equal(step->ctld_port, 7001);
    assert_string_equal(step->slurmd_spool_dir, "/tmp/spool/%n");
    assert_string_equal(step->slurmd_log_file, "/tmp/log/%n.log");
    assert_string_equal(step->slurmd_debug, conf->slurmd_debug);
    assert_true(conf_task_cgroup(step));
    assert_true(conf_cgroup_in_use(step));
    assert_int_equal(step->cgroup.plugin, CONF_CGROUP_V1);
    assert_string_equal(step->cgroup.mountpoint, "/cg");
    assert_true(step->cgroup.constrain_ram_space);
    assert_true(step->cgroup.constrain_devices);
    assert_false(step->cgroup.constrain_cores);
    assert_true(step->cgroup.allowed_ram_space == 90.5);
    assert_int_equal(step->cgroup.min_ram_space_mib, 64);
    assert_int_equal(step->node_count, 1);
    assert_null(conf_node_find(step, "n2"));
    assert_non_null(node = conf_node_find(step, "n1"));
    assert_int_equal(node->port, 7101);
    assert_int_equal(node->gres_dev_count, 2);
    assert_string_equal(node->gres_devs[1].name, "gpu");
    assert_string_equal(node->gres_devs[1].type, "a100");
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia1");
    assert_string_equal(node->gres_devs[1].more_files[0],
                        "/dev/nvidia-caps/nvidia-cap3");
    assert_null(node->gres_devs[1].more_files[1]);
    assert_null(node->gres_devs[0].more_files);
    assert_int_equal(node->gres_devs[1].index, 1);
    char *p = conf_expand_node_path(step->slurmd_spool_dir, node);
    assert_string_equal(p, "/tmp/spool/n1");
    free(p);
    /* and the trip is stable */
    again = conf_step_to_json(step, node);
    assert_true(json_equal(o, again));
    json_decref(again);
    json_decref(o);
    conf_destroy(step);

    /* a node without gres.conf lines: devices without files */
    o = conf_step_to_json(conf, conf_node_find(conf, "n2"));
    assert_non_null(step = conf_step_from_json(o, &error));
    assert_int_equal(step->nodes[0].gres_dev_count, 2);
    assert_null(step->nodes[0].gres_devs[0].file);
    assert_null(step->nodes[0].gres_devs[0].type);
    json_decref(o);
    conf_destroy(step);
    conf_destroy(conf);
    cleanup();
}

/* drover_tls_rpc: the step learns the certificate and key its I/O to
 * srun and sattach presents (stepd_link.h); without it, nothing. */
static void tls_paths_travel_only_when_on(void **state)
{
    struct slurm_conf *conf = load(), *step;
    json_t *o = conf_step_to_json(conf, conf_node_find(conf, "n1"));
    drv_error_t error = {{0}};

    (void)state;
    assert_null(json_object_get(o, "tls"));
    assert_non_null(step = conf_step_from_json(o, &error));
    assert_false(step->tls.rpc);
    assert_null(step->tls.cert);
    json_decref(o);
    conf_destroy(step);
    conf_destroy(conf);
    cleanup();

    conf = load_with("CommunicationParameters=drover_tls_rpc,"
                     "drover_tls_cert=/etc/d/c.pem,drover_tls_key=/etc/d/"
                     "k.pem,drover_tls_ca=/etc/d/ca.pem\n");
    o = conf_step_to_json(conf, conf_node_find(conf, "n1"));
    if (!(step = conf_step_from_json(o, &error)))
        fail_msg("conf_step_from_json: %s", error.text);
    assert_true(step->tls.rpc);
    assert_string_equal(step->tls.cert, "/etc/d/c.pem");
    assert_string_equal(step->tls.key, "/etc/d/k.pem");
    assert_string_equal(step->tls.ca, "/etc/d/ca.pem");
    /* on without a key: refused, named */
    json_object_del(json_object_get(o, "tls"), "key");
    refused(o, "tls");
    json_decref(o);
    conf_destroy(step);
    conf_destroy(conf);
    cleanup();
}

static void refused(json_t *o, const char *want)
{
    drv_error_t error = {{0}};

    assert_null(conf_step_from_json(o, &error));
    if (!strstr(error.text, want))
        fail_msg("error '%s' does not name '%s'", error.text, want);
}

/* A bad object is refused, naming what is wrong. */
static void bad_objects_are_refused(void **state)
{
    struct slurm_conf *conf = load();
    json_t *good = conf_step_to_json(conf, conf_node_find(conf, "n1")), *o;

    (void)state;
    refused(NULL, "path");
    o = json_deep_copy(good);
    json_object_del(o, "node");
    refused(o, "node");
    json_decref(o);
    o = json_deep_copy(good);
    json_object_set_new(o, "task_plugin", json_integer(3));
    refused(o, "task_plugin");
    json_decref(o);
    o = json_deep_copy(good);
    json_object_set_new(json_object_get(o, "cgroup"), "plugin",
                        json_integer(99));
    refused(o, "cgroup");
    json_decref(o);
    o = json_deep_copy(good);
    json_array_append_new(
        json_object_get(json_object_get(o, "node"), "gres_devs"),
        json_pack("{s:s}", "type", "x"));
    refused(o, "gres device");
    json_decref(o);
    json_decref(good);
    conf_destroy(conf);
    cleanup();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_keeps_what_a_step_reads),
        cmocka_unit_test(bad_objects_are_refused),
        cmocka_unit_test(tls_paths_travel_only_when_on),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

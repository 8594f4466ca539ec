/* SPDX-License-Identifier: Apache-2.0
 *
 * test_gpu_nvml.c - gres.conf AutoDetect=nvml (src/noded/gpu_nvml.h):
 * Slurm's type names, discovery through a real dlopen of tests/fake_nvml's
 * libnvidia-ml.so.1, the merge with slurm.conf/gres.conf GPUs, and the
 * AutoDetect= keyword itself.
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
#include "noded/gpu_nvml.h"

static char gpus_file[] = "/tmp/test_gpu_nvml.XXXXXX";

/* Two H100s, minors 0 and 2 (not contiguous), 18 NVLinks between them. */
#define LINKS18(b) b " " b " " b " " b " " b " " b " " b " " b " " b " " \
                   b " " b " " b " " b " " b " " b " " b " " b " " b
static const char two_h100[] =
    "# name|uuid|minor|cpus|bus_id|nvlinks\n"
    "NVIDIA H100 80GB HBM3|GPU-aaaaaaaa-0000-0000-0000-000000000001|0|0-3,8"
    "|00000000:1B:00.0|" LINKS18("00000000:2C:00.0") "\n"
    "NVIDIA H100 80GB HBM3|GPU-aaaaaaaa-0000-0000-0000-000000000002|2|4-7"
    "|00000000:2C:00.0|" LINKS18("00000000:1B:00.0") "\n";

static void use_gpus(const char *text)
{
    FILE *f = fopen(gpus_file, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    setenv("DROVER_FAKE_NVML", gpus_file, 1);
}

static int setup(void **state)
{
    int fd = mkstemp(gpus_file);

    (void)state;
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(gpus_file);
    return 0;
}

static void type_names_as_slurm(void **state)
{
    static const char *const cases[][2] = {
        { "NVIDIA H100 80GB HBM3", "nvidia_h100_80gb_hbm3" },
        { "Tesla V100-SXM2-16GB", "tesla_v100-sxm2-16gb" },
        { "NVIDIA A100-SXM4-40GB", "nvidia_a100-sxm4-40gb" },
        { "", "" },
    };
    char out[96], small[6];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpu_nvml_type_name(cases[i][0], out, sizeof(out));
        assert_string_equal(out, cases[i][1]);
    }
    gpu_nvml_type_name("NVIDIA H100", small, sizeof(small));
    assert_string_equal(small, "nvidi");
}

static void discovers_through_the_library(void **state)
{
    struct gpu_nvml_dev *d = NULL;
    char why[256] = "";
    int n;

    (void)state;
    use_gpus(two_h100);
    n = gpu_nvml_discover(FAKE_NVML, &d, why, sizeof(why));
    assert_int_equal(n, 2);
    assert_string_equal(d[0].name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(d[0].type, "nvidia_h100_80gb_hbm3");
    assert_string_equal(d[0].uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000001");
    assert_string_equal(d[0].file, "/dev/nvidia0");
    assert_string_equal(d[1].file, "/dev/nvidia2");
    assert_string_equal(d[0].cores, "0-3,8");
    assert_string_equal(d[1].cores, "4-7");
    assert_string_equal(d[0].links, "-1,18");
    assert_string_equal(d[1].links, "18,-1");
    assert_int_equal(d[1].index, 1);
    free(d);
}

static void no_links_no_affinity(void **state)
{
    struct gpu_nvml_dev *d = NULL;
    char why[256] = "";

    (void)state;
    use_gpus("Tesla V100-SXM2-16GB|GPU-v|5||00000000:04:00.0|\n");
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, &d, why, sizeof(why)), 1);
    assert_string_equal(d[0].links, "");
    assert_string_equal(d[0].cores, "");
    assert_string_equal(d[0].file, "/dev/nvidia5");
    free(d);
}

static void failures_say_why(void **state)
{
    struct gpu_nvml_dev *d = NULL;
    char why[256] = "";

    (void)state;
    unsetenv("DROVER_FAKE_NVML"); /* as a host without the driver */
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, &d, why, sizeof(why)), -1);
    assert_string_equal(why, "nvmlInit_v2: Driver Not Loaded");
    assert_null(d);
    assert_int_equal(gpu_nvml_discover("/nonexistent/libnvidia-ml.so.1", &d,
                                       why, sizeof(why)),
                     -1);
    assert_non_null(strstr(why, "cannot load /nonexistent/libnvidia-ml.so.1: "));
}

/* Parse slurm.conf 'sc' and gres.conf 'gc', discover 'gpus' (the fake
 * library's text, two GPUs), merge into node 0; returns the conf (caller
 * destroys). */
static struct slurm_conf *merged_gpus(const char *sc, const char *gc,
                                      const char *gpus, size_t *n)
{
    drv_error_t error = { 0 };
    struct slurm_conf *conf = conf_parse("slurm.conf", sc, gc, &error);
    struct gpu_nvml_dev *d = NULL;
    char why[256];
    int count;

    if (!conf)
        fail_msg("%s", error.text);
    assert_true(conf->nodes[0].gpu_autodetect);
    use_gpus(gpus);
    count = gpu_nvml_discover(FAKE_NVML, &d, why, sizeof(why));
    assert_int_equal(count, 2);
    *n = gpu_nvml_merge(&conf->nodes[0], d, (size_t)count);
    free(d);
    return conf;
}

static struct slurm_conf *merged(const char *sc, const char *gc, size_t *n)
{
    return merged_gpus(sc, gc, two_h100, n);
}

static void typed_gres_takes_the_configured_type(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged("NodeName=g1 Gres=gpu:h100:2,mps:200\n",
                                     "AutoDetect=nvml\n", &n);
    const struct conf_node *node = &conf->nodes[0];

    (void)state;
    assert_int_equal(n, 2);
    assert_int_equal(node->gres_dev_count, 2); /* mps is no device */
    for (int i = 0; i < 2; i++) {
        assert_string_equal(node->gres_devs[i].name, "gpu");
        assert_string_equal(node->gres_devs[i].type, "h100");
        assert_int_equal(node->gres_devs[i].index, i);
    }
    assert_string_equal(node->gres_devs[0].file, "/dev/nvidia0");
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia2");
    assert_string_equal(node->gres_devs[1].uuid,
                        "GPU-aaaaaaaa-0000-0000-0000-000000000002");
    assert_int_equal(node->gpu_shards[0], 100); /* over both GPUs */
    assert_int_equal(node->gpu_shards[1], 100);
    conf_destroy(conf);
}

static void untyped_gres_drops_the_type_and_counts_what_is_found(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged("NodeName=g1 Gres=gpu:4\n",
                                     "NodeName=g1 AutoDetect=nvml\n", &n);

    (void)state;
    assert_int_equal(n, 2); /* 2 < 4: the controller drains the node */
    assert_null(conf->nodes[0].gres_devs[0].type);
    assert_string_equal(conf->nodes[0].gres_devs[1].file, "/dev/nvidia2");
    conf_destroy(conf);
}

static void gres_conf_files_pick_their_gpu_and_stay_when_missing(void **s)
{
    size_t n;
    struct slurm_conf *conf = merged("NodeName=g1 Gres=gpu:h100:2\n",
                                     "AutoDetect=nvml\n"
                                     "Name=gpu File=/dev/nvidia[1-2]\n", &n);
    const struct conf_node *node = &conf->nodes[0];

    (void)s;
    /* In gres.conf's order: nvidia1 configured only: kept; nvidia2 found
     * (with its UUID); nvidia0 found but not configured: ignored. */
    assert_int_equal(n, 2);
    assert_string_equal(node->gres_devs[0].file, "/dev/nvidia1");
    assert_null(node->gres_devs[0].uuid);
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia2");
    assert_non_null(node->gres_devs[1].uuid);
    conf_destroy(conf);
}

/* GPUs of two types: the node's indexes follow Gres= (the controller's),
 * whatever NVML's order, so index 0 is the A100 NVML lists second. */
static void two_types_keep_the_configured_order(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged_gpus(
        "NodeName=g1 Gres=gpu:a100:1,gpu:v100:1\n", "AutoDetect=nvml\n",
        "Tesla V100-SXM2-16GB|GPU-v|0||00000000:04:00.0|\n"
        "NVIDIA A100-SXM4-40GB|GPU-a|1||00000000:05:00.0|\n", &n);
    const struct conf_node *node = &conf->nodes[0];

    (void)state;
    assert_non_null(node->gpu_types);
    assert_string_equal(node->gpu_types[0], "a100");
    assert_string_equal(node->gpu_types[1], "v100");
    assert_int_equal(n, 2);
    assert_string_equal(node->gres_devs[0].type, "a100");
    assert_string_equal(node->gres_devs[0].file, "/dev/nvidia1");
    assert_string_equal(node->gres_devs[1].type, "v100");
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia0");
    conf_destroy(conf);
}

/* MultipleFiles= lines (MIG instances) stay as configured, files and
 * all, beside the GPUs NVML matched. */
static void multiple_files_stay_as_configured(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged(
        "NodeName=g1 Gres=gpu:h100:1,gpu:1g.10gb:1\n",
        "AutoDetect=nvml\n"
        "Name=gpu Type=h100 File=/dev/nvidia0\n"
        "Name=gpu Type=1g.10gb MultipleFiles=/dev/nvidia2,/dev/cap1\n", &n);
    const struct conf_node *node = &conf->nodes[0];

    (void)state;
    assert_int_equal(n, 2);
    assert_non_null(node->gres_devs[0].uuid);
    assert_string_equal(node->gres_devs[1].type, "1g.10gb");
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia2");
    assert_string_equal(node->gres_devs[1].more_files[0], "/dev/cap1");
    assert_null(node->gres_devs[1].uuid);
    conf_destroy(conf);
}

static void another_type_matches_nothing(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged("NodeName=g1 Gres=gpu:a100:2\n",
                                     "AutoDetect=nvml\n", &n);

    (void)state;
    assert_int_equal(n, 0);
    assert_int_equal(conf->nodes[0].gres_dev_count, 0);
    conf_destroy(conf);
}

static void autodetect_keyword(void **state)
{
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    (void)state;
    /* A NodeName line wins over the global value, either order. */
    conf = conf_parse("slurm.conf", "NodeName=g[1-3] Gres=gpu:2\n",
                      "NodeName=g2 AutoDetect=off\nAutoDetect=nvml\n"
                      "NodeName=g3 Name=gpu File=/dev/nvidia[0-3]\n",
                      &error);
    assert_non_null(conf);
    assert_true(conf->nodes[0].gpu_autodetect);
    assert_false(conf->nodes[1].gpu_autodetect);
    /* With nvml, gres.conf and Gres= counts may differ (checked at
     * registration). */
    assert_true(conf->nodes[2].gpu_autodetect);
    assert_int_equal(conf->nodes[2].gres_dev_count, 4);
    conf_destroy(conf);
    conf = conf_parse("slurm.conf", "NodeName=g1 Gres=gpu:2\n",
                      "Name=gpu Count=2\n", &error);
    assert_non_null(conf);
    assert_false(conf->nodes[0].gpu_autodetect); /* off by default */
    conf_destroy(conf);
    assert_null(conf_parse("slurm.conf", "NodeName=g1\n", "AutoDetect=rsmi\n",
                           &error));
    assert_non_null(strstr(error.text, "gres.conf:1: AutoDetect=rsmi: not "
                           "supported by Drover (off or nvml)"));
    assert_null(conf_parse("slurm.conf", "NodeName=g1\n", "AutoDetect=yes\n",
                           &error));
    assert_non_null(strstr(error.text, "gres.conf:1: AutoDetect=yes: expected"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(type_names_as_slurm),
        cmocka_unit_test(discovers_through_the_library),
        cmocka_unit_test(no_links_no_affinity),
        cmocka_unit_test(failures_say_why),
        cmocka_unit_test(typed_gres_takes_the_configured_type),
        cmocka_unit_test(untyped_gres_drops_the_type_and_counts_what_is_found),
        cmocka_unit_test(gres_conf_files_pick_their_gpu_and_stay_when_missing),
        cmocka_unit_test(two_types_keep_the_configured_order),
        cmocka_unit_test(multiple_files_stay_as_configured),
        cmocka_unit_test(another_type_matches_nothing),
        cmocka_unit_test(autodetect_keyword),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, setup, teardown);
}

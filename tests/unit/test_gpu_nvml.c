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
static char minors_file[] = "/tmp/test_gpu_mig_minors.XXXXXX";

/* The driver's /proc/driver/nvidia-caps/mig-minors, in part: GPU 1's
 * GPU instances 3-5 with compute instance 0 each (GPU 0's too, which
 * must not be taken for GPU 1's). */
static const char mig_minors[] =
    "config 1\n"
    "monitor 2\n"
    "gpu0/gi3/access 30\n"
    "gpu0/gi3/ci0/access 31\n"
    "gpu1/gi3/access 57\n"
    "gpu1/gi3/ci0/access 58\n"
    "gpu1/gi4/access 66\n"
    "gpu1/gi4/ci0/access 67\n"
    "gpu1/gi5/access 75\n"
    "gpu1/gi5/ci0/access 76\n"
    "gpu1/gi5/ci1/access 77\n";

/* An H100 without MIG, then an A100 in MIG mode with (in NVML's order) a
 * 2g.20gb and two 1g.10gb instances, and a fourth instance whose GPU
 * instance mig-minors lacks (left out). */
static const char mig_gpus[] =
    "NVIDIA H100 80GB HBM3|GPU-h|0|0-3|00000000:1B:00.0|\n"
    "NVIDIA A100-SXM4-80GB|GPU-a|2|4-7|00000000:2C:00.0||"
    "2g.20gb,5,0,MIG-c;1g.10gb,3,0,MIG-a;1g.10gb,4,0,MIG-b;"
    "1g.10gb,9,0,MIG-gone\n";

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
    int fd = mkstemp(gpus_file), fd2 = mkstemp(minors_file);

    (void)state;
    if (fd < 0 || fd2 < 0)
        return -1;
    if (write(fd2, mig_minors, strlen(mig_minors)) != (ssize_t)strlen(mig_minors))
        return -1;
    close(fd);
    close(fd2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(gpus_file);
    unlink(minors_file);
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
    n = gpu_nvml_discover(FAKE_NVML, NULL, &d, why, sizeof(why));
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
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, NULL, &d, why,
                                       sizeof(why)), 1);
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
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, NULL, &d, why,
                                       sizeof(why)), -1);
    assert_string_equal(why, "nvmlInit_v2: Driver Not Loaded");
    assert_null(d);
    assert_int_equal(gpu_nvml_discover("/nonexistent/libnvidia-ml.so.1",
                                       NULL, &d, why, sizeof(why)),
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
    count = gpu_nvml_discover(FAKE_NVML, minors_file, &d, why, sizeof(why));
    assert_true(count >= 2);
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

static void mig_type_names_as_slurm(void **state)
{
    char out[96];

    (void)state;
    gpu_nvml_mig_type_name("NVIDIA A100-SXM4-40GB",
                           "NVIDIA A100-SXM4-40GB MIG 1g.5gb", out,
                           sizeof(out));
    assert_string_equal(out, "nvidia_a100_1g.5gb");
    gpu_nvml_mig_type_name("NVIDIA H100 80GB HBM3",
                           "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb", out,
                           sizeof(out));
    assert_string_equal(out, "nvidia_h100_80gb_hbm3_1c.3g.40gb");
    gpu_nvml_mig_type_name("GPU X", "Odd Name", out, sizeof(out));
    assert_string_equal(out, "gpu_x_odd_name");
}

static void mig_minors_parsing(void **state)
{
    unsigned gi = 0, ci = 0;
    char why[256] = "";

    (void)state;
    assert_int_equal(gpu_nvml_mig_minors(minors_file, 1, 5, 1, &gi, &ci, why,
                                         sizeof(why)), 0);
    assert_int_equal(gi, 75);
    assert_int_equal(ci, 77);
    assert_int_equal(gpu_nvml_mig_minors(minors_file, 0, 3, 0, &gi, &ci, why,
                                         sizeof(why)), 0);
    assert_int_equal(gi, 30);
    assert_int_equal(ci, 31);
    assert_int_equal(gpu_nvml_mig_minors(minors_file, 1, 9, 0, &gi, &ci, why,
                                         sizeof(why)), -1);
    assert_non_null(strstr(why, ": no gpu1/gi9/access"));
    assert_int_equal(gpu_nvml_mig_minors(minors_file, 1, 4, 2, &gi, &ci, why,
                                         sizeof(why)), -1);
    assert_non_null(strstr(why, ": no gpu1/gi4/ci2/access"));
    assert_int_equal(gpu_nvml_mig_minors("/nonexistent/mig-minors", 0, 3, 0,
                                         &gi, &ci, why, sizeof(why)), -1);
    assert_string_equal(why, "cannot open /nonexistent/mig-minors: "
                             "No such file or directory");
}

static void discovers_mig_instances(void **state)
{
    struct gpu_nvml_dev *d = NULL;
    char why[256] = "";

    (void)state;
    use_gpus(mig_gpus);
    /* The H100, the A100, and three of its four instances. */
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, minors_file, &d, why,
                                       sizeof(why)), 5);
    assert_int_equal(d[0].mig, -1);
    assert_int_equal(d[0].mig_count, -1);
    assert_int_equal(d[1].mig, -1);
    assert_int_equal(d[1].mig_count, 3);
    assert_string_equal(d[1].file, "/dev/nvidia2");
    for (int i = 2; i < 5; i++) {
        assert_int_equal(d[i].index, 1);
        assert_int_equal(d[i].mig, i - 2);
        assert_int_equal(d[i].mig_count, -1);
        assert_string_equal(d[i].file, "/dev/nvidia2");
        assert_string_equal(d[i].cores, "4-7");
        assert_string_equal(d[i].links, "");
        assert_int_equal(d[i].ci, 0);
    }
    assert_string_equal(d[2].name, "NVIDIA A100-SXM4-80GB MIG 2g.20gb");
    assert_string_equal(d[2].type, "nvidia_a100_2g.20gb");
    assert_string_equal(d[2].uuid, "MIG-c");
    assert_int_equal(d[2].gi, 5);
    assert_string_equal(d[2].caps[0], "/dev/nvidia-caps/nvidia-cap75");
    assert_string_equal(d[2].caps[1], "/dev/nvidia-caps/nvidia-cap76");
    assert_string_equal(d[3].type, "nvidia_a100_1g.10gb");
    assert_string_equal(d[3].caps[0], "/dev/nvidia-caps/nvidia-cap57");
    assert_string_equal(d[4].uuid, "MIG-b");
    assert_string_equal(d[4].caps[1], "/dev/nvidia-caps/nvidia-cap67");
    assert_string_equal(d[0].caps[0], "");
    free(d);
    /* MIG mode without instances: the GPU alone, not usable. */
    use_gpus("NVIDIA A100-SXM4-80GB|GPU-a|0||00000000:2C:00.0||-\n");
    assert_int_equal(gpu_nvml_discover(FAKE_NVML, minors_file, &d, why,
                                       sizeof(why)), 1);
    assert_int_equal(d[0].mig_count, 0);
    free(d);
}

/* Gres= by profile: the instances in the configured order, each its
 * GPU's file and its two capability files, with its MIG UUID; neither
 * the A100 itself nor the H100 is used. */
static void mig_instances_merge_as_typed_gpus(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged_gpus(
        "NodeName=g1 Gres=gpu:1g.10gb:2,gpu:2g.20gb:1\n",
        "AutoDetect=nvml\n", mig_gpus, &n);
    const struct conf_node *node = &conf->nodes[0];
    static const char *const want[][4] = {
        { "1g.10gb", "MIG-a", "57", "58" },
        { "1g.10gb", "MIG-b", "66", "67" },
        { "2g.20gb", "MIG-c", "75", "76" },
    };

    (void)state;
    assert_int_equal(n, 3);
    assert_int_equal(node->gres_dev_count, 3);
    for (int i = 0; i < 3; i++) {
        const struct conf_gres_dev *g = &node->gres_devs[i];
        char cap[64];
        assert_int_equal(g->index, i);
        assert_string_equal(g->type, want[i][0]);
        assert_string_equal(node->gpu_types[i], want[i][0]);
        assert_string_equal(g->uuid, want[i][1]);
        assert_string_equal(g->file, "/dev/nvidia2");
        snprintf(cap, sizeof(cap), "/dev/nvidia-caps/nvidia-cap%s",
                 want[i][2]);
        assert_string_equal(g->more_files[0], cap);
        snprintf(cap, sizeof(cap), "/dev/nvidia-caps/nvidia-cap%s",
                 want[i][3]);
        assert_string_equal(g->more_files[1], cap);
        assert_null(g->more_files[2]);
    }
    conf_destroy(conf);
}

/* gres.conf lines: File=/dev/nvidia2 is the A100 (in MIG mode: not
 * found, kept as configured); MultipleFiles= with an instance's files
 * is that instance (its UUID); the H100 by its File=. */
static void mig_instances_match_configured_files(void **state)
{
    size_t n;
    struct slurm_conf *conf = merged_gpus(
        "NodeName=g1 Gres=gpu:3\n", "AutoDetect=nvml\n"
        "Name=gpu MultipleFiles=/dev/nvidia2,/dev/nvidia-caps/nvidia-cap66,"
        "/dev/nvidia-caps/nvidia-cap67\n"
        "Name=gpu File=/dev/nvidia2\n"
        "Name=gpu File=/dev/nvidia0\n", mig_gpus, &n);
    const struct conf_node *node = &conf->nodes[0];

    (void)state;
    assert_int_equal(n, 3);
    assert_string_equal(node->gres_devs[0].uuid, "MIG-b");
    assert_string_equal(node->gres_devs[0].more_files[1],
                        "/dev/nvidia-caps/nvidia-cap67");
    assert_string_equal(node->gres_devs[1].file, "/dev/nvidia2");
    assert_null(node->gres_devs[1].uuid);
    assert_null(node->gres_devs[1].more_files);
    assert_string_equal(node->gres_devs[2].uuid, "GPU-h");
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
        cmocka_unit_test(mig_type_names_as_slurm),
        cmocka_unit_test(mig_minors_parsing),
        cmocka_unit_test(discovers_mig_instances),
        cmocka_unit_test(mig_instances_merge_as_typed_gpus),
        cmocka_unit_test(mig_instances_match_configured_files),
        cmocka_unit_test(another_type_matches_nothing),
        cmocka_unit_test(autodetect_keyword),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * test_job_mem.c - a new job's memory and CPUs against its partition's
 * DefMemPerCPU/DefMemPerNode, DefMemPerGPU, DefCpuPerGPU and
 * MaxMemPerCPU/MaxMemPerNode (src/ctld/job_mem.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctld/job_mem.h"

static const struct job_mem_given none = {0};
static const struct job_mem_given mem_given = {.mem = true};

static struct sched_request req(void)
{
    return (struct sched_request){.cpus_per_task = 1};
}

static void no_memory_option_takes_def_mem_per_cpu(void **state)
{
    (void)state;
    struct conf_partition cp = {.def_mem = {.mib = 100, .per_cpu = true}};
    struct sched_request r = req();

    assert_int_equal(job_mem_resolve(&r, &none, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_cpu_mib, 100);
    assert_int_equal(r.mem_per_node_mib, 0);
}

static void no_memory_option_takes_def_mem_per_node(void **state)
{
    (void)state;
    struct conf_partition cp = {.def_mem = {.mib = 300}};
    struct sched_request r = req();

    assert_int_equal(job_mem_resolve(&r, &none, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_node_mib, 300);
    assert_int_equal(r.mem_per_cpu_mib, 0);
}

static void explicit_memory_keeps_its_own(void **state)
{
    (void)state;
    struct conf_partition cp = {.def_mem = {.mib = 100, .per_cpu = true}};
    struct sched_request r = req();

    r.mem_per_node_mib = 0; /* --mem=0 is given too */
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_cpu_mib, 0);
    assert_int_equal(r.mem_per_node_mib, 0);
}

static void gpu_job_takes_def_mem_and_cpu_per_gpu(void **state)
{
    (void)state;
    struct conf_partition cp = {.def_mem = {.mib = 100, .per_cpu = true},
                                .def_mem_per_gpu_mib = 2048,
                                .def_cpu_per_gpu = 4};
    struct sched_request r = req();
    const struct job_mem_given cpt = {.cpus_per_task = true};

    r.gpus_per_node = 2;
    assert_int_equal(job_mem_resolve(&r, &none, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_gpu_mib, 2048);
    assert_int_equal(r.mem_per_cpu_mib, 0);
    assert_int_equal(r.cpus_per_gpu, 4);
    /* -c given: no DefCpuPerGPU (slurm.conf(5)) */
    r = req();
    r.gpus_total = 1;
    assert_int_equal(job_mem_resolve(&r, &cpt, &cp), JOB_MEM_OK);
    assert_int_equal(r.cpus_per_gpu, 0);
    /* no GPUs: neither per-GPU default */
    r = req();
    assert_int_equal(job_mem_resolve(&r, &none, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_gpu_mib, 0);
    assert_int_equal(r.cpus_per_gpu, 0);
    assert_int_equal(r.mem_per_cpu_mib, 100);
}

static void defaults_are_not_held_to_the_limit(void **state)
{
    (void)state;
    struct conf_partition cp = {.def_mem = {.mib = 900},
                                .max_mem = {.mib = 500}};
    struct sched_request r = req();

    assert_int_equal(job_mem_resolve(&r, &none, &cp), JOB_MEM_OK);
    assert_int_equal(r.mem_per_node_mib, 900);
}

static void mem_per_cpu_over_max_raises_cpus_per_task(void **state)
{
    (void)state;
    struct conf_partition cp = {.max_mem = {.mib = 100, .per_cpu = true}};
    struct sched_request r = req();

    r.mem_per_cpu_mib = 250; /* factor 3: -c 2 becomes 6, 84 MiB each */
    r.cpus_per_task = 2;
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
    assert_int_equal(r.cpus_per_task, 6);
    assert_int_equal(r.mem_per_cpu_mib, 84);
    r = req();
    r.mem_per_cpu_mib = 100; /* at the limit: unchanged */
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
    assert_int_equal(r.cpus_per_task, 1);
    assert_int_equal(r.mem_per_cpu_mib, 100);
}

static void mem_per_node_with_max_per_cpu_raises_mincpus(void **state)
{
    (void)state;
    struct conf_partition cp = {.max_mem = {.mib = 100, .per_cpu = true}};
    struct sched_request r = req();

    r.mem_per_node_mib = 350;
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
    assert_int_equal(r.min_cpus_per_node, 4);
    assert_int_equal(r.mem_per_node_mib, 350);
}

static void mem_over_max_per_node_is_over_limit(void **state)
{
    (void)state;
    struct conf_partition cp = {.max_mem = {.mib = 1000}};
    struct sched_request r = req();

    r.mem_per_node_mib = 1001;
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp),
                     JOB_MEM_OVER_LIMIT);
    r.mem_per_node_mib = 1000;
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
    /* per CPU: 300 MiB times the 4 CPUs of -n 8 -N 2 */
    r = req();
    r.mem_per_cpu_mib = 300;
    r.ntasks = 8;
    r.min_nodes = 2;
    assert_int_equal(job_mem_cpus_per_node(&r), 4);
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp),
                     JOB_MEM_OVER_LIMIT);
    r.min_nodes = 4; /* 2 CPUs a node: 600 MiB */
    assert_int_equal(job_mem_resolve(&r, &mem_given, &cp), JOB_MEM_OK);
}

static void cpus_per_node_counts_tasks_and_mincpus(void **state)
{
    (void)state;
    struct sched_request r = req();

    assert_int_equal(job_mem_cpus_per_node(&r), 1);
    r.cpus_per_task = 2;
    r.ntasks_per_node = 3;
    assert_int_equal(job_mem_cpus_per_node(&r), 6);
    r.min_cpus_per_node = 8;
    assert_int_equal(job_mem_cpus_per_node(&r), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_memory_option_takes_def_mem_per_cpu),
        cmocka_unit_test(no_memory_option_takes_def_mem_per_node),
        cmocka_unit_test(explicit_memory_keeps_its_own),
        cmocka_unit_test(gpu_job_takes_def_mem_and_cpu_per_gpu),
        cmocka_unit_test(defaults_are_not_held_to_the_limit),
        cmocka_unit_test(mem_per_cpu_over_max_raises_cpus_per_task),
        cmocka_unit_test(mem_per_node_with_max_per_cpu_raises_mincpus),
        cmocka_unit_test(mem_over_max_per_node_is_over_limit),
        cmocka_unit_test(cpus_per_node_counts_tasks_and_mincpus),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * test_output_shapes.c - `scontrol show config` and --json against the
 * Slurm 22.05.8 goldens (scontrol-show-config-full, squeue-json,
 * sinfo-json)
 *
 * show config: every key of the golden, in its order and layout; the keys
 * the controller sends print the golden's value when given the golden's
 * running values.  --json: the top-level shape and the first fields.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/config_print.h"
#include "cmd/lib/json_out.h"

/* Lines of the golden, as the controller for that cluster would send them:
 * 2026-11-21T06:11:50 is 1795241510 in UTC.
 */
static const char golden_lines[] =
    "Configuration data as of 2026-11-21T06:11:50\n"
    "AccountingStorageBackupHost = (null)\n"
    "BOOT_TIME               = 2026-11-21T05:59:54\n"
    "ClusterName             = anchor\n"
    "KillWait                = 30 sec\n"
    "MaxArraySize            = 10001\n"
    "MinJobAge               = 300 sec\n"
    "NEXT_JOB_ID             = 8389\n"
    "PowerPlugin             = \n"
    "SchedulerTimeSlice      = 30 sec\n"
    "SlurmUser               = root(0)\n"
    "SlurmctldHost[0]        = vm\n"
    "SlurmctldPort           = 6817\n"
    "SlurmdTimeout           = 300 sec\n"
    "SLURM_VERSION           = 22.05.8\n"
    "\nSlurmctld(primary) at vm is UP\n";

static void show_config_layout(void **state)
{
    json_t *resp = json_pack(
        "{s:I s:I s:I s:{s:s s:s s:i s:i s:i s:i s:s s:i}}", "now",
        (json_int_t)1795241510, "boot_time", (json_int_t)1795240794,
        "next_job_id", (json_int_t)8389, "config", "ClusterName", "anchor",
        "SlurmctldHost[0]", "vm", "SlurmctldPort", 6817, "KillWait", 30,
        "MinJobAge", 300, "MaxArraySize", 10001, "SlurmUser", "root",
        "SlurmdTimeout", 300);
    char *text = config_sprint(resp), *copy = strdup(golden_lines), *save;
    size_t lines = 0;

    (void)state;
    assert_non_null(text);
    for (char *l = strtok_r(copy, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *want = NULL;

        assert_true(asprintf(&want, "%s%s\n", l == copy ? "" : "\n", l) > 0);
        if (!strstr(text, want))
            fail_msg("missing line \"%s\" in\n%s", l, text);
        free(want);
    }
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 210); /* as the golden: 207 keys + 3 */
    assert_non_null(strstr(text, "\nAccountingStorageType   = "
                                 "accounting_storage/none\n"));
    free(copy);
    free(text);
    json_decref(resp);
}

static void json_top_level(void **state)
{
    json_t *job = json_pack("{s:i s:s s:s s:I s:i}", "job_id", 8378, "name",
                            "true", "job_state", "CANCELLED", "time_limit_s",
                            (json_int_t)600, "group_id", 1001);
    const json_t *recs[] = {job};
    char *text;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    json_t *doc, *plugin, *j;

    (void)state;
    json_out_print(f, "jobs", recs, 1, json_out_job);
    fclose(f);
    assert_non_null(strstr(text, "{\n  \"meta\": {\n    \"plugin\": {\n"
                                 "      \"type\": \"openapi\\/v0.0.38\",\n"));
    doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    plugin = json_object_get(json_object_get(doc, "meta"), "plugin");
    assert_string_equal(json_string_value(json_object_get(plugin, "name")),
                        "Slurm OpenAPI v0.0.38");
    j = json_array_get(json_object_get(doc, "jobs"), 0);
    assert_string_equal(json_string_value(json_object_get(j, "account")), "");
    assert_string_equal(json_object_iter_key(json_object_iter(j)), "account");
    assert_int_equal(json_integer_value(json_object_get(j, "job_id")), 8378);
    assert_int_equal(json_integer_value(json_object_get(j, "time_limit")), 10);
    assert_string_equal(json_string_value(json_object_get(j, "job_state")),
                        "CANCELLED");
    json_decref(doc);
    json_decref(job);
    free(text);
}

/* Every "[]" of the indented text opens onto its own line (as Slurm
 * prints empty lists), a "[]" inside a string stays, and the output is
 * sized exactly: 10,000 records with empty lists once asked for
 * (lists x length) bytes (here ~80 GB) and died "out of memory".
 */
static void json_empty_lists(void **state)
{
    json_t *doc = json_object(), *arr = json_array();
    char *text;

    (void)state;
    for (int i = 0; i < 10000; i++)
        json_array_append_new(arr, json_pack("{s:[] s:[] s:[] s:[] s:s}",
                                             "nodes", "flags", "gres",
                                             "steps", "name", "a[]b"));
    json_object_set_new(doc, "jobs", arr);
    text = json_out_text(doc);
    assert_non_null(text);
    assert_non_null(strstr(text, "      \"nodes\": [\n      ],\n"
                                 "      \"flags\": [\n      ],\n"));
    assert_null(strstr(text, "\"nodes\": []"));
    json_t *back = json_loads(text, 0, NULL);
    assert_non_null(back);
    assert_true(json_equal(back, doc));
    json_decref(back);
    json_decref(doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(show_config_layout),
        cmocka_unit_test(json_top_level),
        cmocka_unit_test(json_empty_lists),
    };

    setenv("TZ", "UTC", 1);
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

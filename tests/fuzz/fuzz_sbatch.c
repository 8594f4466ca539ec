/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_sbatch.c - a batch script's #SBATCH directives, as sbatch reads
 * them, and the job description built from them
 */
#include "fuzz.h"

#include <stdio.h>

#include <jansson.h>

#include "cmd/lib/sbatch_opt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    char *argv[] = {"sbatch", NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    struct sbatch_error e = {0};
    struct sbatch_opts *o;
    char *script = fuzz_string(data, size);
    json_t *desc;

    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    o = sbatch_opts_create(null);
    if (sbatch_opts_first_pass(o, 1, argv, &e) == SBATCH_SUBMIT
        && sbatch_opts_second_pass(o, script, "fuzz.sh", envp, &e) == 0
        && (desc = sbatch_opts_job_desc(o, script, envp, &e)))
        json_decref(desc);
    sbatch_opts_destroy(o);
    free(script);
    return 0;
}

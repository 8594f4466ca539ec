/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_sbatch.c - a batch script's #SBATCH directives, as sbatch reads
 * them, and the job description built from them
 *
 * `--export-file=N` reads descriptor N (3-65535) to its end, as Slurm's
 * does.  A sanitizer's symbolizer pipe opened during the run would block
 * such a read for ever, so every descriptor an input can name is taken
 * by /dev/null before the first input (LLVMFuzzerInitialize), as far
 * as RLIMIT_NOFILE allows less 64 left for libFuzzer: a read ends at
 * once, and later pipes get numbers above those (where the hard limit is
 * under 65,600, in that last window of 64).
 */
#include "fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/lib/sbatch_opt.h"

#define EXPORT_FD_MAX 65535 /* sbatch_files.c as_fd() */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct rlimit rl;
    int null = open("/dev/null", O_RDONLY);
    int top = EXPORT_FD_MAX;

    (void)argc;
    (void)argv;
    if (null < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
        abort();
    if (rl.rlim_cur < (rlim_t)EXPORT_FD_MAX + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)EXPORT_FD_MAX + 64
                          ? rl.rlim_max : (rlim_t)EXPORT_FD_MAX + 64;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    if ((rlim_t)top > rl.rlim_cur - 64) /* room left for libFuzzer */
        top = (int)(rl.rlim_cur - 64);
    for (int fd = 3; fd <= top; fd++)
        if (fd != null && fcntl(fd, F_GETFD) < 0)
            (void)dup2(null, fd);
    return 0;
}

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

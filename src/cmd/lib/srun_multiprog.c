/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_multiprog.c - srun --multi-prog's file (srun_multiprog.h)
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/lib/srun_multiprog.h"
#include "common/multiprog.h"
#include "common/xalloc.h"

#define MULTIPROG_MAX (1024 * 1024)

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    size_t n;

    if (!f)
        return NULL;
    buf = xzalloc(MULTIPROG_MAX + 1);
    n = fread(buf, 1, MULTIPROG_MAX, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

char *srun_multiprog_load(const char *path, int *ntasks, bool ntasks_set,
                          FILE *err)
{
    char msg[1024], *text;
    json_t *js;
    const char *env = getenv("SLURM_NTASKS");

    if (!ntasks_set) { /* SLURM_NTASKS is srun's -n, as in Slurm */
        ntasks_set = env && atoi(env) > 0;
        *ntasks = ntasks_set ? atoi(env) : 1;
    }
    if (!(text = read_text(path))) {
        fprintf(err, "srun: error: Unable to open configuration file %s\n",
                path);
        return NULL;
    }
    js = json_string(text); /* it travels as JSON: UTF-8 only */
    if (!json_is_string(js)) {
        fprintf(err, "srun: error: Configuration file %s invalid: not "
                     "UTF-8 text\n", path);
        free(text);
        return NULL;
    }
    json_decref(js);
    if (multiprog_check(text, path, ntasks, ntasks_set, msg,
                        sizeof(msg)) < 0) {
        for (char *line = msg, *nl; line; line = nl) {
            if ((nl = strchr(line, '\n')))
                *nl++ = '\0';
            fprintf(err, "srun: error: %s\n", line);
        }
        free(text);
        return NULL;
    }
    return text;
}

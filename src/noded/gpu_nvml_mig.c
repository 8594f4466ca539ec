/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_nvml_mig.c - what MIG instances need besides NVML: their GRES type
 * name and their capability minors from the driver's mig-minors file
 * (gpu_nvml.h)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "noded/gpu_nvml.h"

void gpu_nvml_mig_type_name(const char *gpu_name, const char *mig_name,
                            char *out, size_t len)
{
    const char *profile = mig_name, *p;
    char joined[256];

    for (p = strstr(mig_name, " MIG "); p; p = strstr(p + 1, " MIG "))
        profile = p + 5;
    snprintf(joined, sizeof(joined), "%.*s_%s",
             (int)strcspn(gpu_name, "-"), gpu_name, profile);
    gpu_nvml_type_name(joined, out, len);
}

int gpu_nvml_mig_minors(const char *path, unsigned gpu, unsigned gi,
                        unsigned ci, unsigned *gi_minor, unsigned *ci_minor,
                        char *why, size_t whylen)
{
    char gi_key[64], ci_key[64], line[256], key[128];
    int found = 0; /* bit 0: the GPU instance's, bit 1: the compute's */
    unsigned value;
    FILE *f;

    snprintf(gi_key, sizeof(gi_key), "gpu%u/gi%u/access", gpu, gi);
    snprintf(ci_key, sizeof(ci_key), "gpu%u/gi%u/ci%u/access", gpu, gi, ci);
    if (!(f = fopen(path, "r"))) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    while (found != 3 && fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%127s %u", key, &value) != 2)
            continue;
        if (!strcmp(key, gi_key)) {
            *gi_minor = value;
            found |= 1;
        } else if (!strcmp(key, ci_key)) {
            *ci_minor = value;
            found |= 2;
        }
    }
    fclose(f);
    if (found == 3)
        return 0;
    snprintf(why, whylen, "%s: no %s", path, found & 1 ? ci_key : gi_key);
    return -1;
}
